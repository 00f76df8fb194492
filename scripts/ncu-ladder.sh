#!/usr/bin/env bash
# ncu-ladder.sh — issue 11's profiler evidence: Nsight Compute on tilekit's best FP32 SIMT kernel
# and on cuBLAS SGEMM at the shapes where the ladder has not reached cuBLAS, one `tilekit gemm`
# each, and a table of the columns docs/ladder.md compares ("Where the ceiling is"): duration,
# FMA pipe busy, instructions, registers, occupancy, shared-memory bank conflicts, DRAM
# throughput and the largest stall reasons of each GEMM kernel.
#
# Usage: scripts/ncu-ladder.sh [BIN_DIR | PACK.txz] [OUT_DIR]   (default build/bin; a pack made by
#        scripts/pack-gpu-bin.sh with tilekit in it; OUT_DIR: default $OUT or ./ncu-ladder-logs)
# Environment: CASES, space-separated MxNxK:KERNEL_ID pairs (default: the missed rows of
#        docs/results.md, "Step 17 on the H200 and in the shipped table", each beside cuBLAS).
# Needs ncu and a GPU. Clocks stay as they are (--clock-control none). Every kernel a call
# launches is profiled (the input fills, the packed copies and the GEMM's own kernels); the
# table marks the fills and shows the rest.
set -uo pipefail
# shellcheck source=gpu-bin-lib.sh
. "$(dirname "$0")/gpu-bin-lib.sh"
BIN=$(resolve_bin "${1:-build/bin}") || exit 1
OUTDIR=${2:-${OUT:-ncu-ladder-logs}}
mkdir -p "$OUTDIR"

CUBLAS=gemm.cuda.cublas.f32
DEFAULT_CASES="\
2048x2048x2048:gemm.cuda.15_packed.f32.128x256x8_w2x4_t8x16_s2 2048x2048x2048:$CUBLAS \
4096x4096x4096:gemm.cuda.17_hybrid.f32.128x256x8_w2x4_t8x16_s2 4096x4096x4096:$CUBLAS \
512x512x512:gemm.cuda.10_split_k.f32.128x128x16_w2x4_t8x8_s3_splitk 512x512x512:$CUBLAS \
64x4096x4096:gemm.cuda.13_straight_loop.f32.64x128x16_w2x2_t8x8_s3 64x4096x4096:$CUBLAS \
1x4096x4096:gemm.cuda.11_skinny.f32 1x4096x4096:$CUBLAS \
16384x16384x16384:gemm.cuda.17_hybrid.f32.128x256x8_w2x4_t8x16_s2 16384x16384x16384:$CUBLAS"
SECTIONS=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section InstructionStats --section ComputeWorkloadAnalysis)
EXTRA=sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum

for case in ${CASES:-$DEFAULT_CASES}; do
  shape=${case%%:*} kernel=${case#*:}
  IFS=x read -r m n k <<<"$shape"
  out="$OUTDIR/ncu-$shape-${kernel#gemm.cuda.}.csv"
  cmd=("$BIN/tilekit" gemm --backend cuda --m "$m" --n "$n" --k "$k" --kernel "$kernel")
  echo "== $shape $kernel"
  # The extra metrics first; without them if this ncu does not know one of their names.
  if ! ncu --clock-control none --csv --page raw "${SECTIONS[@]}" --metrics "$EXTRA" "${cmd[@]}" \
      >"$out" 2>"$out.err"; then
    echo "   (ncu with the extra metrics failed: $(tail -1 "$out.err"); sections only)"
    ncu --clock-control none --csv --page raw "${SECTIONS[@]}" "${cmd[@]}" >"$out" 2>"$out.err" ||
      echo "   (ncu failed: $(tail -1 "$out.err"))"
  fi
done

python3 - "$OUTDIR" <<'PY' | tee "$OUTDIR/ncu-ladder.md"
import csv, glob, os, re, sys

COLUMNS = [  # (heading, metric, scale, format)
    ("ms", "gpu__time_duration.sum", 1e-6, "{:.3f}"),  # in ns after UNIT_SCALE
    ("FMA pipe %", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("SM busy %", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("inst (G)", "smsp__inst_executed.sum", 1e-9, "{:.3f}"),
    ("regs", "launch__registers_per_thread", 1, "{:.0f}"),
    ("occ %", "sm__warps_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("conflicts ld/st", None, 1, ""),
]
UNIT_SCALE = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}
STALL = re.compile(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def kernels(path):
    """(kernel name, {metric: value}) per profiled launch, values in the file's units."""
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    if len(lines) < 3:
        return []
    rows = list(csv.reader(lines))
    head, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        vals = {h: (v, u) for h, v, u in zip(head, r, units)}
        out.append((vals.get("Kernel Name", ("?", ""))[0], vals))
    return out


def cell(vals, metric, scale, fmt):
    if metric not in vals:
        return "-"
    v, unit = vals[metric]
    x = number(v)
    if x is None:
        return v
    if metric == "gpu__time_duration.sum":
        x *= UNIT_SCALE.get(unit, 1)
    return fmt.format(x * scale)


def stalls(vals, top=4):
    found = []
    for name, (v, _) in vals.items():
        m, x = STALL.search(name), number(v)
        if m and x:
            found.append((x, m.group(1)))
    return ", ".join(f"{n} {x:.2f}" for x, n in sorted(found, reverse=True)[:top]) or "-"


print("| shape | kernel id | launched kernel | " + " | ".join(c[0] for c in COLUMNS) +
      " | top stalls (cycles per issued instruction) |")
print("|---|---|---|" + "---|" * len(COLUMNS) + "---|")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu-*.csv"))):
    shape, _, kid = os.path.basename(path)[4:-4].partition("-")
    for name, vals in kernels(path):
        short = re.sub(r"\(.*", "", name)[:48]
        if re.search(r"fill|random|curand|philox", name, re.I):
            short += " (input fill)"
        cells = []
        for heading, metric, scale, fmt in COLUMNS:
            if metric is None:
                ld = cell(vals, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1, "{:.0f}")
                st = cell(vals, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1, "{:.0f}")
                cells.append(f"{ld} / {st}")
            else:
                cells.append(cell(vals, metric, scale, fmt))
        print(f"| {shape} | `{kid}` | `{short}` | " + " | ".join(cells) + f" | {stalls(vals)} |")
PY
