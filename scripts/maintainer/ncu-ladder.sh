#!/usr/bin/env bash
# ncu-ladder.sh — profiler evidence: Nsight Compute on tilekit's best FP32 SIMT kernel
# and on cuBLAS SGEMM at the shapes where the ladder has not reached cuBLAS, one `tilekit gemm`
# each, and a table of the columns docs/ladder.md compares ("Where the ceiling is"): duration,
# FMA pipe busy, instructions, registers, occupancy, shared-memory bank conflicts, DRAM
# throughput and the largest stall reasons of each GEMM kernel.
#
# Usage: scripts/maintainer/ncu-ladder.sh [BIN_DIR | PACK.txz] [OUT_DIR]   (default build/bin; a
#        pack made by scripts/maintainer/pack-gpu-bin.sh with tilekit in it; OUT_DIR: default
#        $OUT or ./ncu-ladder-logs)
# Environment: CASES, space-separated MxNxK:KERNEL_ID pairs (default: the missed rows of
#        docs/results.md, "Step 17 on the H200 and in the shipped table", each beside cuBLAS).
# Needs ncu and a GPU. Clocks stay as they are (--clock-control none). Every kernel a call
# launches is profiled (the input fills, the packed copies and the GEMM's own kernels); the
# table (ncu_ladder_table.py beside this script, into OUT_DIR/ncu-ladder.md) marks the fills.
set -uo pipefail
# shellcheck source=gpu-bin-lib.sh
. "$(dirname "$0")/gpu-bin-lib.sh"
BIN=$(resolve_bin "${1:-build/bin}") || exit 1
OUTDIR=${2:-${OUT:-ncu-ladder-logs}}
mkdir -p "$OUTDIR"

CUBLAS=gemm.cuda.cublas.f32
DEFAULT_CASES="\
2048x2048x2048:gemm.cuda.simt.f32.128x256x8_w2x4_t8x16_s2.packed.split_k 2048x2048x2048:$CUBLAS \
4096x4096x4096:gemm.cuda.simt.f32.128x256x8_w2x4_t8x16_s2.packed.hybrid_stream_k 4096x4096x4096:$CUBLAS \
512x512x512:gemm.cuda.simt.f32.128x128x16_w2x4_t8x8_s3.cp_async.split_k 512x512x512:$CUBLAS \
64x4096x4096:gemm.cuda.simt.f32.64x128x16_w2x2_t8x8_s3.straight.split_k 64x4096x4096:$CUBLAS \
1x4096x4096:gemm.cuda.simt.f32.skinny_m8 1x4096x4096:$CUBLAS \
16384x16384x16384:gemm.cuda.simt.f32.128x256x8_w2x4_t8x16_s2.packed.hybrid_stream_k 16384x16384x16384:$CUBLAS"
SECTIONS=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section InstructionStats --section ComputeWorkloadAnalysis)
EXTRA=$(python3 "$(dirname "$0")/ncu_ladder_table.py" --extra-metrics)

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

python3 "$(dirname "$0")/ncu_ladder_table.py" "$OUTDIR" | tee "$OUTDIR/ncu-ladder.md"
