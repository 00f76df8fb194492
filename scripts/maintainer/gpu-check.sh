#!/usr/bin/env bash
# gpu-check.sh — everything tilekit checks on a GPU machine, in one go:
#   1. `tilekit devices`
#   2. the GPU test suite (TILEKIT_REQUIRE_GPU=1: a missing GPU fails instead of skipping)
#   3. compute-sanitizer memcheck, racecheck and synccheck over a small-size subset of the GPU
#      tests
#   4. a short benchmark: `tilekit bench gemm --sizes 1024,4096 --kernels 'gemm.cuda.*'`
#   5. the accuracy table: `tilekit accuracy --kernels 'gemm.cuda.*'` (k = 16 … 16384)
# and prints a summary table last. Full logs go to $OUT (or ./gpu-check-logs).
#
# Usage: scripts/maintainer/gpu-check.sh [BIN_DIR | PACK.txz]   (default build/bin; the folder
#        with tilekit and the test executables, as built by cmake --build, or a pack of them made
#        by scripts/maintainer/pack-gpu-bin.sh; a pack may leave tilekit_cpu_tests out)
# Environment: BENCH_SIZES, BENCH_KERNELS, ACCURACY_KERNELS (the steps' arguments below);
#        GPU_TESTS_FILTER (a gtest filter for step 2; default: the whole suite); SMALL (the
#        sanitizers' gtest filter; default: the small cases below); OUT (the log folder).
set -uo pipefail

# shellcheck source=gpu-bin-lib.sh
. "$(dirname "$0")/gpu-bin-lib.sh"
BIN=$(resolve_bin "${1:-build/bin}") || exit 1
LOGS=${OUT:-gpu-check-logs}
BENCH_SIZES=${BENCH_SIZES:-1024,4096}
BENCH_KERNELS=${BENCH_KERNELS:-gemm.cuda.*}
ACCURACY_KERNELS=${ACCURACY_KERNELS:-gemm.cuda.*}
mkdir -p "$LOGS"
export TILEKIT_REQUIRE_GPU=1
declare -a summary

step() {  # step NAME LOGFILE COMMAND...
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" | tee "$LOGS/$log"
  "$@" >>"$LOGS/$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-34s %-6s %4ss  %s' "$name" "$([ $rc -eq 0 ] && echo PASS || echo "FAIL($rc)")" $((SECONDS - t0)) "$log")")
  return $rc
}

step "devices" devices.log "$BIN/tilekit" devices
step "GPU tests" gpu-tests.log "$BIN/tilekit_gpu_tests" --gtest_brief=1 \
  --gtest_output="xml:$LOGS/gpu-tests.xml" ${GPU_TESTS_FILTER:+--gtest_filter="$GPU_TESTS_FILTER"}
# A pack kept small (pack-gpu-bin.sh) may leave the CPU suite out (it runs on the machine that
# built it); say so rather than fail.
if [ -x "$BIN/tilekit_cpu_tests" ]; then
  step "CPU tests (on this machine)" cpu-tests.log "$BIN/tilekit_cpu_tests" --gtest_brief=1
else
  summary+=("$(printf '%-34s %-6s' "CPU tests (on this machine)" "absent")")
fi

if command -v compute-sanitizer >/dev/null 2>&1; then
  # Small sizes only: the sanitizer slows kernels down by orders of magnitude (the stream-K
  # repeat tests run 2100² or 4097² ten times; the small exact cases and the SM-limit test cover
  # their partial tiles and step 17's two kernels). The
  # run-time split test runs for five of the fifteen kernels that take a split: the 128×128×16
  # tile of steps 10, 13, 14 and 15, and step 11. Step 10's seven together ran past 230 s under
  # racecheck on the H200.
  # The gemv family: its 105 cases with a 129-wide side (every row, layout, op and mainloop,
  # sliced k, the tensor-core path at k = 1000 and 1024).
  SMALL=${SMALL:-'*__row_NN_*_beta2*_exact:*__row_NN_33x33x33:*__row_TN_132x68x260_*:*__col_NN_7x130x2053_pad:*__row_NN_36x44x4100_*:*__row_NN_65x65x65:*__col_TT_64x33x63_*:*__row_NT_129x65x128_*:CudaGemm.*:CudaReference.*:Device.MemoryRoundTrip:*CudaTranspose*__31x33:*CudaTranspose*__128x96_pad1_0:*CudaTranspose*__4097x17:*CudaDot*__n4097_mixed:*CudaDot*__n1001_mixed_off1:*CudaCopy*__n4097_*:CudaGemm/RunTimeSplitK.*/gemm_cuda_simt_f32_128x128x16*:CudaGemm/RunTimeSplitK.*/gemm_cuda_simt_f32_skinny_m8*:Family/GemvKernel.*/*_1x129x*:Family/GemvKernel.*/*129x*x1024*:Family/GemvKernel.*/*x129x1024*:Family/GemvKernel.*/*129x*x1000*:Family/GemvKernel.*/*x129x1000*:Family/GemvKernel.*/*129x*x17_*-CudaGemm.StreamKIsBitIdenticalRunToRun:CudaGemm.LadderStreamKIsBitIdenticalRunToRun:CudaGemm.LadderHybridStreamKIsCorrectAndBitIdenticalRunToRun'}
  step "memcheck (small sizes)" memcheck.log compute-sanitizer --tool memcheck --error-exitcode 9 \
    --leak-check full "$BIN/tilekit_gpu_tests" --gtest_filter="$SMALL" --gtest_brief=1
  step "racecheck (small sizes)" racecheck.log compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$BIN/tilekit_gpu_tests" --gtest_filter="$SMALL" --gtest_brief=1
  step "synccheck (small sizes)" synccheck.log compute-sanitizer --tool synccheck --error-exitcode 9 \
    "$BIN/tilekit_gpu_tests" --gtest_filter="$SMALL" --gtest_brief=1
else
  summary+=("$(printf '%-34s %-6s' "compute-sanitizer" "absent")")
fi

step "bench gemm" bench.log "$BIN/tilekit" bench gemm --sizes "$BENCH_SIZES" \
  --kernels "$BENCH_KERNELS" --csv "$LOGS/bench.csv" --json "$LOGS/bench.json"

step "accuracy" accuracy.log "$BIN/tilekit" accuracy --kernels "$ACCURACY_KERNELS" \
  --csv "$LOGS/accuracy.csv" --json "$LOGS/accuracy.json"

echo
echo "---- benchmark ----"
grep -v '^==' "$LOGS/bench.log"
echo
echo "---- accuracy ----"
grep -v '^==' "$LOGS/accuracy.log"
echo
echo "---- GPU test summary ----"
grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? ran' "$LOGS/gpu-tests.log" | tail -5
echo
echo "---- gpu-check summary ----"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q FAIL
