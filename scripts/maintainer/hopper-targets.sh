#!/usr/bin/env bash
# hopper-targets.sh — the Hopper tensor-core targets, measured in one go on the H200:
# `tilekit bench gemm` per compute mode over the target sizes, each mode's kernels beside its
# same-run baseline (cuBLAS BF16, cuBLAS TF32, and cuBLAS SGEMM for 3xTF32), then the four ops
# and both layouts at 4096, the accuracy table, and one table of the best own kernel against its
# baseline and the target, met or not. Each size's rows are timed in three rounds, in turn
# (--interleave 3): the H200 runs at its power limit and its clocks drift over a bench, which
# otherwise favoured whichever row ran first (the baseline).
#
# `tilekit bench --suite hopper-targets` measures the same rows and prints the first table (in
# milliseconds, with the targets' verdicts); what this script adds is the second table (each op
# and the column-major layout at 4096 against NN, within 10%) and `tilekit accuracy`.
#
# Usage: scripts/maintainer/hopper-targets.sh [BIN_DIR]   (default build/bin). CSVs and logs go
#        to $OUT (or ./hopper-targets-logs); the tables are printed last and written to
#        targets.md there.
#        KERNELS (default: every Hopper kernel of the mode, 'gemm.cuda.sm90*') narrows the own
#        kernels; the mode's baseline and a row for what `auto` runs are always added.
set -uo pipefail
BIN=${1:-build/bin}
LOGS=${OUT:-hopper-targets-logs}
KERNELS=${KERNELS:-gemm.cuda.sm90*}
mkdir -p "$LOGS"
declare -A MODE_ARGS=([bf16]="--dtype bf16" [tf32]="--compute tf32" [f32_3xtf32]="--compute f32_3xtf32")
run() {  # run NAME MODE ARGS... : one bench invocation, CSV kept
  local name=$1 mode=$2; shift 2
  local kernels=(--kernels "$KERNELS,auto")
  echo "== $name: tilekit bench gemm ${MODE_ARGS[$mode]} ${kernels[*]} $*" | tee "$LOGS/$name.log"
  # shellcheck disable=SC2086  # MODE_ARGS holds two words on purpose
  "$BIN/tilekit" bench gemm ${MODE_ARGS[$mode]} "${kernels[@]}" --csv "$LOGS/$name.csv" "$@" \
    >>"$LOGS/$name.log" 2>&1 || echo "   (exit $?)"
}
for mode in bf16 tf32 f32_3xtf32; do
  run "$mode" "$mode" --sizes 2048,4096,4097,8192,8193 --max-time 0.5 --interleave 3
  run "${mode}_NT" "$mode" --sizes 4096 --trans-b --max-time 0.5 --interleave 3
  run "${mode}_TN" "$mode" --sizes 4096 --trans-a --max-time 0.5 --interleave 3
  run "${mode}_TT" "$mode" --sizes 4096 --trans-a --trans-b --max-time 0.5 --interleave 3
  run "${mode}_colNN" "$mode" --sizes 4096 --layout col --max-time 0.5 --interleave 3
done
echo "== accuracy" | tee "$LOGS/accuracy.log"
"$BIN/tilekit" accuracy --kernels 'gemm.cuda.*' --csv "$LOGS/accuracy.csv" >>"$LOGS/accuracy.log" 2>&1 \
  || echo "   (exit $?)"
python3 - "$LOGS" <<'PY' | tee "$LOGS/targets.md"
import csv, os, sys
logs = sys.argv[1]
# The targets: the best own kernel over the mode's same-run baseline, at least this much.
TARGETS = {"bf16": {"2048": 0.9, "4096": 1.0, "8192": 1.0, "4097": 4.0, "8193": 4.0},
           "tf32": {"4096": 1.0, "8192": 1.0, "4097": 3.0},
           "f32_3xtf32": {"4096": 2.0, "8192": 2.0, "4097": 2.2}}

def rows(name):
    path = os.path.join(logs, name + ".csv")
    return [r for r in csv.DictReader(open(path)) if r["outcome"] == "ok"] if os.path.exists(path) else []

def best_and_base(at):
    # The baseline row is the one at 100% (cuBLAS); the own kernels are the others but auto's.
    base = [r for r in at if r["kernel"].startswith("gemm.cuda.cublas")]
    own = [r for r in at if not r["kernel"].startswith("gemm.cuda.cublas") and r["kernel"] != "auto"]
    return (max(own, key=lambda r: float(r["gflops"])) if own else None), (base[0] if base else None)

def auto_ratio(at, base):
    auto = [r for r in at if r["kernel"] == "auto"]
    return f"{float(auto[0]['gflops']) / float(base['gflops']):.2f}×" if auto and base else "-"

print("| mode | size | baseline | GFLOP/s | best own kernel | GFLOP/s | own / base | auto / base | target | |")
print("|---|---|---|---|---|---|---|---|---|---|")
for mode, targets in TARGETS.items():
    got = rows(mode)
    for size in dict.fromkeys(r["size"] for r in got):
        at = [r for r in got if r["size"] == size]
        best, base = best_and_base(at)
        if not best or not base:
            print(f"| {mode} | {size} | {base['kernel'] if base else '-'} | | (no own kernel ran) | | | | | |")
            continue
        ratio = float(best["gflops"]) / float(base["gflops"])
        target = targets.get(size)
        verdict = "" if target is None else ("met" if ratio >= target else "**missed**")
        print(f"| {mode} | {size} | `{base['kernel'].replace('gemm.cuda.', '')}` | {float(base['gflops']):,.0f} "
              f"| `{best['kernel'].replace('gemm.cuda.', '')}` | {float(best['gflops']):,.0f} | {ratio:.2f}× "
              f"| {auto_ratio(at, base)} | {'' if target is None else f'≥ {target}×'} | {verdict} |")
print()
print("All four ops and both layouts at 4096 within 10% of NN (best own kernel, GFLOP/s):")
print()
print("| mode | NN | NT | TN | TT | col NN | worst / NN | |")
print("|---|---|---|---|---|---|---|---|")
for mode in TARGETS:
    nn, _ = best_and_base([r for r in rows(mode) if r["size"] == "4096"])
    cells, worst, measured = [], None, 0
    for variant in ("NT", "TN", "TT", "colNN"):
        b, _ = best_and_base(rows(f"{mode}_{variant}"))
        cells.append(f"{float(b['gflops']):,.0f}" if b else "-")
        if b and nn:
            measured += 1
            r = float(b["gflops"]) / float(nn["gflops"])
            worst = r if worst is None else min(worst, r)
    # A verdict only when every op and layout ran.
    verdict = "" if measured < 4 else ("met" if worst >= 0.9 else "**missed**")
    print(f"| {mode} | {float(nn['gflops']):,.0f} | " if nn else f"| {mode} | - | ", end="")
    print(" | ".join(cells) + f" | {'-' if worst is None else f'{worst:.2f}'} | {verdict} |")
PY
echo
grep -v '^==' "$LOGS/accuracy.log"
