#!/usr/bin/env bash
# ncu-memory.sh — the Birmingham lecture's profiler columns for the memory-bound kernels:
# global load and store efficiency, achieved occupancy, shared-memory bank conflicts, duration,
# for the transpose ladder (8192²), the copies and the dot products (2^24 elements).
# Needs Nsight Compute (ncu) and a GPU. Usage: scripts/maintainer/ncu-memory.sh [BIN_DIR] [OUT_DIR]
set -uo pipefail
BIN=${1:-build/bin}
OUTDIR=${2:-${OUT:-ncu-logs}}
mkdir -p "$OUTDIR"
METRICS=smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,gpu__time_duration.sum
N=${NCU_TRANSPOSE_N:-8192}
run() {  # run LABEL COMMAND...
  local label=$1; shift
  ncu --clock-control none --csv --metrics "$METRICS" "$@" > "$OUTDIR/ncu-$label.csv" 2>&1
}
for k in 02_thread_per_row.f32 03_thread_per_element.f32.32x8 04_smem_tiled.f32.32x8 \
         05_smem_padded.f32.32x8 06_vectorized.f32.64x64; do
  run "transpose.$k" "$BIN/tilekit" transpose --backend cuda --rows "$N" --cols "$N" \
      --kernel "transpose.cuda.$k"
done
# Copies and dots at 2^24 elements: the first launch of each kernel (the verification run).
for k in coalesced.f32 uncoalesced.f32 float4_grid_stride.f32; do
  run "copy.$k" --launch-count 1 --kernel-name regex:'copy_' "$BIN/tilekit" bench copy --backend cuda \
      --sizes 16777216 --kernels "copy.cuda.$k" --no-baseline --min-samples 1 --max-time 0.001
done
for k in 01_shared_atomic.f32 02_warp_shuffle.f32 03_two_pass.f32 03_two_pass.f64acc; do
  run "dot.$k" --launch-count 1 --kernel-name regex:'dot_' "$BIN/tilekit" dot --backend cuda \
      --n 16777216 --kernel "dot.cuda.$k"
done
python3 - "$OUTDIR" <<'PY'
import csv, glob, os, sys
short = {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct": "gld eff %",
         "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct": "gst eff %",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occ %",
         "sm__maximum_warps_per_active_cycle_pct": "theoretical occ %",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "smem ld conflicts",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "smem st conflicts",
         "gpu__time_duration.sum": "time ns"}
rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu-*.csv"))):
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    vals = {}
    for r in csv.DictReader(lines):
        vals[short.get(r["Metric Name"], r["Metric Name"])] = r["Metric Value"]
    rows.append((os.path.basename(path)[4:-4], vals))
cols = list(short.values())
print("| kernel | " + " | ".join(cols) + " |")
print("|---|" + "---|" * len(cols))
for name, vals in rows:
    print("| " + name + " | " + " | ".join(vals.get(c, "-") for c in cols) + " |")
PY
