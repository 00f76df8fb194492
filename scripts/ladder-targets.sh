#!/usr/bin/env bash
# ladder-targets.sh — the FP32 SIMT GEMM targets, measured in one go on a GPU machine:
# `tilekit bench gemm` over the target shapes (squares, odd sizes, skinny and k-heavy shapes, the
# four ops at 4096) with cuBLAS SGEMM, tilekit's own kernels of ladder steps 05-17 and `auto` in
# the same run, then one table: for each shape the best own kernel against cuBLAS, and what `auto`
# ran (with the table this build ships, or the tune cache of TILEKIT_CACHE_DIR) against cuBLAS.
#
# Usage: scripts/ladder-targets.sh [BIN_DIR]   (default build/bin). CSVs and logs go to $OUT (or
#        ./ladder-targets-logs); the table is printed last and written to targets.md there.
#        MAX_TIME: seconds of samples per kernel and shape (default 0.5; 0.2 fits the run in 10
#        minutes). OWN: the own kernels' globs (default: steps 05-17; a
#        shorter list, with `auto` always beside it, fits a shorter run).
set -uo pipefail
BIN=${1:-build/bin}
LOGS=${OUT:-ladder-targets-logs}
mkdir -p "$LOGS"
OWN=${OWN:-'gemm.cuda.0[5-9]*,gemm.cuda.1[0-7]*'}
T=${MAX_TIME:-0.5}
run() {  # run NAME ARGS... : one bench invocation, CSV kept
  local name=$1; shift
  echo "== $name: tilekit bench gemm $*" | tee "$LOGS/$name.log"
  "$BIN/tilekit" bench gemm --kernels "gemm.cuda.cublas.f32,$OWN,auto" --csv "$LOGS/$name.csv" "$@" \
    >>"$LOGS/$name.log" 2>&1 || echo "   (exit $?)"
}
run squares --sizes 256,512,1024,2048,4096,4097,8192,8193 --max-time $T
run large --sizes 16384 --min-samples 5
run shapes --sizes 8192x8192x256,256x8192x8192,64x4096x4096,4096x4096x64,3456x4096x4096,16384x16384x128,1x4096x4096 --max-time $T
run op_NT --sizes 4096 --trans-b --max-time $T
run op_TN --sizes 4096 --trans-a --max-time $T
run op_TT --sizes 4096 --trans-a --trans-b --max-time $T
"$BIN/tilekit" bench copy >"$LOGS/copy.log" 2>&1
python3 - "$LOGS" <<'PY' | tee "$LOGS/targets.md"
import csv, glob, os, sys
logs = sys.argv[1]
print("| run | shape | cuBLAS GFLOP/s | best own kernel | GFLOP/s | own / cuBLAS | `auto` / cuBLAS |")
print("|---|---|---|---|---|---|---|")
for name in ["squares", "large", "shapes", "op_NT", "op_TN", "op_TT"]:
    path = os.path.join(logs, name + ".csv")
    if not os.path.exists(path):
        continue
    rows = [r for r in csv.DictReader(open(path)) if r["outcome"] == "ok"]
    for size in dict.fromkeys(r["size"] for r in rows):
        at = [r for r in rows if r["size"] == size]
        base = [float(r["gflops"]) for r in at if r["kernel"] == "gemm.cuda.cublas.f32"]
        own = [r for r in at if r["kernel"] not in ("gemm.cuda.cublas.f32", "auto")]
        auto = [float(r["gflops"]) / base[0] for r in at if r["kernel"] == "auto" and base]
        if not base or not own:
            continue
        best = max(own, key=lambda r: float(r["gflops"]))
        ratio = float(best["gflops"]) / base[0]
        kid = best["kernel"].replace("gemm.cuda.", "")
        auto_text = f"{auto[0]:.2f}×" if auto else "—"
        print(f"| {name} | {size} | {base[0]:,.0f} | `{kid}` | {float(best['gflops']):,.0f} | {ratio:.2f}× | {auto_text} |")
PY
