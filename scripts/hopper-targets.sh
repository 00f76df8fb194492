#!/usr/bin/env bash
# hopper-targets.sh — the tensor-core GEMM targets of issue 12, measured in one go on an H200:
# `tilekit bench gemm` for each mode (bf16, tf32, f32_3xtf32) over the target sizes and the four
# ops and both layouts at 4096, tilekit's Hopper kernels (src/cuda/gemm/sm90/) beside the mode's
# cuBLAS baseline in the same run (cuBLAS BF16, cuBLAS TF32, cuBLAS SGEMM for 3xTF32), then one
# table: for each shape the best own kernel against the baseline.
#
# Usage: scripts/hopper-targets.sh [BIN_DIR]   (default build/bin). CSVs and logs go to $OUT (or
#        ./hopper-targets-logs); the table is printed last and written to targets.md there.
set -uo pipefail
BIN=${1:-build/bin}
LOGS=${OUT:-hopper-targets-logs}
mkdir -p "$LOGS"
run() {  # run NAME BASELINE OWN_GLOB ARGS... : one bench invocation, CSV kept
  local name=$1 base=$2 own=$3; shift 3
  echo "== $name: tilekit bench gemm --kernels $base,$own $*" | tee "$LOGS/$name.log"
  "$BIN/tilekit" bench gemm --kernels "$base,$own" --csv "$LOGS/$name.csv" --max-time 0.5 "$@" \
    >>"$LOGS/$name.log" 2>&1 || echo "   (exit $?)"
  echo "$base" >"$LOGS/$name.baseline"
}
BF16='gemm.cuda.sm90_0[1-3]*.bf16.*'
TF32='gemm.cuda.sm90_04_tf32.f32_tf32.*'
X3='gemm.cuda.sm90_04_tf32.f32_3xtf32.*'
run bf16 gemm.cuda.cublas.bf16 "$BF16" --dtype bf16 --sizes 2048,4096,8192,4097,8193
run tf32 gemm.cuda.cublas.f32_tf32 "$TF32" --compute tf32 --sizes 4096,8192,4097
run 3xtf32 gemm.cuda.cublas.f32 "$X3" --compute f32_3xtf32 --sizes 4096,8192,4097
for op in "NT --trans-b" "TN --trans-a" "TT --trans-a --trans-b" "colNN --layout col"; do
  set -- $op
  tag=$1; shift
  run "bf16_$tag" gemm.cuda.cublas.bf16 "$BF16" --dtype bf16 --sizes 4096 "$@"
  run "tf32_$tag" gemm.cuda.cublas.f32_tf32 "$TF32" --compute tf32 --sizes 4096 "$@"
  run "3xtf32_$tag" gemm.cuda.cublas.f32 "$X3" --compute f32_3xtf32 --sizes 4096 "$@"
done
python3 - "$LOGS" <<'PY' | tee "$LOGS/targets.md"
import csv, glob, os, sys
logs = sys.argv[1]
print("| run | size | baseline | GFLOP/s | best own kernel | GFLOP/s | own / baseline |")
print("|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(logs, "*.csv")), key=lambda p: (len(os.path.basename(p)), p)):
    name = os.path.basename(path)[:-4]
    base_id = open(os.path.join(logs, name + ".baseline")).read().strip()
    rows = [r for r in csv.DictReader(open(path)) if r["outcome"] == "ok"]
    for size in dict.fromkeys(r["size"] for r in rows):
        at = [r for r in rows if r["size"] == size]
        base = [float(r["gflops"]) for r in at if r["kernel"] == base_id]
        own = [r for r in at if r["kernel"].startswith("gemm.cuda.sm90")]
        if not base or not own:
            continue
        best = max(own, key=lambda r: float(r["gflops"]))
        ratio = float(best["gflops"]) / base[0]
        kid = best["kernel"].replace("gemm.cuda.", "")
        print(f"| {name} | {size} | `{base_id.replace('gemm.cuda.', '')}` | {base[0]:,.0f} | `{kid}` | "
              f"{float(best['gflops']):,.0f} | {ratio:.2f}× |")
PY
