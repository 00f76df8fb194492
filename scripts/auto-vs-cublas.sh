#!/usr/bin/env bash
# auto-vs-cublas.sh — what a caller of gemm() gets on a GPU: kernel `auto` against the mode's
# cuBLAS baseline in the same `tilekit bench gemm` run (cuBLAS BF16 for bf16, TF32 for tf32,
# SGEMM for f32 and 3xTF32), at the autotuner's evaluation shapes: 12 per op, 48 per mode, none a
# training shape of the shipped table (scripts/tune-shapes.sh). Each size's two rows are timed
# in three rounds, in turn (--interleave 3), and every row is verified before it is timed.
#
# Usage: scripts/auto-vs-cublas.sh [BIN_DIR]   (default build/bin)
#   MODES  compute modes (default "bf16 tf32 f32_3xtf32 f32")
#   OPS    ops (default "NN NT TN TT")
# CSVs and logs go to $OUT (or ./auto-vs-cublas-logs); the table is printed last and written to
# auto-vs-cublas.md there (scripts/auto_vs_baseline_table.py).
set -uo pipefail
BIN=${1:-build/bin}
LOGS=${OUT:-auto-vs-cublas-logs}
mkdir -p "$LOGS"
source "$(dirname "$0")/tune-shapes.sh"  # EVAL_NN ... EVAL_TT
declare -A MODE_ARGS=([bf16]="--dtype bf16" [tf32]="--compute tf32" [f32_3xtf32]="--compute f32_3xtf32"
                      [f32]="--compute f32")
declare -A OP_ARGS=([NN]="" [NT]="--trans-b" [TN]="--trans-a" [TT]="--trans-a --trans-b")
for mode in ${MODES:-bf16 tf32 f32_3xtf32 f32}; do
  for ops in ${OPS:-NN NT TN TT}; do
    sizes=EVAL_$ops
    name=$mode-$ops  # the table reads the mode and the ops from the file's name
    start=$SECONDS
    # shellcheck disable=SC2086  # MODE_ARGS and OP_ARGS hold several words on purpose
    "$BIN/tilekit" bench gemm ${MODE_ARGS[$mode]} ${OP_ARGS[$ops]} --kernels auto \
      --sizes "${!sizes}" --interleave 3 --max-time 0.3 --csv "$LOGS/$name.csv" \
      >"$LOGS/$name.log" 2>&1 || echo "   ($name: exit $?)"
    echo "== $name: $((SECONDS - start)) s"
  done
done
python3 "$(dirname "$0")/auto_vs_baseline_table.py" "$LOGS" | tee "$LOGS/auto-vs-cublas.md"
