#!/usr/bin/env bash
# gpu-multigpu-check.sh — the multi-GPU GEMM (docs/multigpu.md) on a machine of 2
# or more GPUs, in one go:
#   1. the topology: `nvidia-smi topo -m` (when present) and `tilekit devices`
#   2. the multi-GPU tests over every visible GPU (bit-for-bit with one GPU's result of the same
#      kernel; fault cases; panels of one GPU against the whole), TILEKIT_REQUIRE_GPU=1 so that a
#      missing GPU fails instead of skipping; and the CPU tests of the schedule (the
#      communicator double)
#   3. `tilekit bench gemm --gpus $GPUS` at n = 16384 and 32768 for f32, then bf16 (skipped, with the
#      reason, when this build has no own bf16 CUDA kernel): operands resident on the GPUs, host
#      operands with transfers included, one GPU and cuBLASXt in the same run
#   4. a panel sweep at 16384 for each type (overlap granularity: 2 and 8 panels per block,
#      resident only)
# and prints the benchmark tables, then a summary table last. Full logs and CSVs go to $OUT (or
# ./gpu-multigpu-logs).
#
# Usage: scripts/maintainer/gpu-multigpu-check.sh [BIN_DIR | PACKED.tgz | PACKED.txz]
#        (default build/bin: tilekit, tilekit_multigpu_tests and tilekit_dist_tests of a CUDA
#        build with NCCL, with the bundled OpenBLAS; or those packed, docs/gpu.md;
#        tilekit_dist_tests may be left out)
# Environment: GPUS (default 2: GPUs 0..GPUS-1 for the benchmark; the tests take every visible
# GPU, so set CUDA_VISIBLE_DEVICES to test fewer), SIZES (default "16384 32768"), DTYPES (default
# "f32 bf16"), SWEEP (default 1; 0 skips step 4), TESTS (default 1; 0 skips step 2), HOST
# (default 1; 0 adds --no-host --no-baseline: resident operands only, much shorter at 32768):
# the whole run takes about 5–8 minutes on 2 × H200; these split it into shorter runs.
set -uo pipefail

# NVLink multicast (NCCL's NVLS) off, as in the runs of docs/multigpu.md: set before anything can
# start NCCL.
export NCCL_NVLS_ENABLE=0

# A packed build (pack-gpu-bin.sh: the executables and bundled libraries, small enough to
# travel) is unpacked into a temporary folder first.
# shellcheck source=gpu-bin-lib.sh
. "$(dirname "$0")/gpu-bin-lib.sh"
BIN=$(resolve_bin "${1:-build/bin}") || exit 1
LOGS=${OUT:-gpu-multigpu-logs}
GPUS=${GPUS:-2}
SIZES=${SIZES:-16384 32768}
SWEEP=${SWEEP:-1}
TESTS=${TESTS:-1}
HOST=${HOST:-1}
DTYPES=${DTYPES:-f32 bf16}
resident_only=()
[ "$HOST" = 1 ] || resident_only=(--no-host --no-baseline)
mkdir -p "$LOGS"
declare -a summary

# libnccl.so.2: the build's rpath names the build machine's copy; on this machine take the one
# the loader finds, else the CUDA toolkit's, the system's or a Python wheel's (torch ships one).
if ldd "$BIN/tilekit" 2>/dev/null | grep -q 'libnccl.so.2 => not found'; then
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
             /usr/lib/x86_64-linux-gnu \
             $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null) \
             $(ls -d /usr/local/cuda-*/lib64 2>/dev/null); do
    if [ -e "$dir/libnccl.so.2" ]; then
      export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    fi
  done
fi
echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE; libnccl: $(ldd "$BIN/tilekit" 2>/dev/null | grep libnccl || echo '?')" \
  | tee "$LOGS/environment.log"

step() {  # step NAME LOGFILE COMMAND...
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" | tee "$LOGS/$log"
  "$@" >>"$LOGS/$log" 2>&1
  local rc=$?
  local verdict
  case $rc in
    0) verdict=PASS ;;
    2) verdict="SKIP(2)" ;;  # the build or machine cannot serve it; the log says why
    *) verdict="FAIL($rc)" ;;
  esac
  summary+=("$(printf '%-40s %-8s %4ss  %s' "$name" "$verdict" $((SECONDS - t0)) "$log")")
  return $rc
}

if command -v nvidia-smi >/dev/null 2>&1; then
  step "topology (nvidia-smi topo -m)" topology.log nvidia-smi topo -m
fi
step "devices" devices.log "$BIN/tilekit" devices
export TILEKIT_REQUIRE_GPU=1
if [ "$TESTS" = 1 ]; then
  step "multi-GPU tests" multigpu-tests.log "$BIN/tilekit_multigpu_tests" \
    --gtest_brief=1 --gtest_output="xml:$LOGS/multigpu-tests.xml"
  # The CPU suite of the schedule (CI runs it too); left out of a pack that must stay small.
  if [ -x "$BIN/tilekit_dist_tests" ]; then
    step "schedule tests (communicator double)" dist-tests.log "$BIN/tilekit_dist_tests" --gtest_brief=1
  else
    summary+=("$(printf '%-40s %-8s' "schedule tests (communicator double)" "absent")")
  fi
fi

declare -a tables
for dtype in $DTYPES; do
  for n in $SIZES; do
    samples=10
    [ "$n" -ge 32768 ] && samples=5  # each sample is seconds there
    log="bench-$dtype-$n.log"
    step "bench --gpus $GPUS $dtype $n" "$log" "$BIN/tilekit" bench gemm --gpus "$GPUS" \
      --sizes "$n" --dtype "$dtype" --min-samples "$samples" ${resident_only[@]+"${resident_only[@]}"} \
      --csv "$LOGS/bench-$dtype-$n.csv"
    rc=$?
    tables+=("$log")
    [ $rc -eq 2 ] && break  # skipped (no own kernel for the type): the next size would say the same
  done
done
for dtype in $([ "$SWEEP" = 1 ] && echo $DTYPES); do
  for panels in 2 8; do
    log="bench-$dtype-16384-panels$panels.log"
    step "bench --gpus $GPUS $dtype 16384 panels $panels" "$log" "$BIN/tilekit" bench gemm \
      --gpus "$GPUS" --sizes 16384 --dtype "$dtype" --panels "$panels" --no-host --no-baseline \
      --csv "$LOGS/bench-$dtype-16384-panels$panels.csv"
    rc=$?
    tables+=("$log")
    [ $rc -eq 2 ] && break
  done
done

echo
echo "---- benchmarks (per GPU: each rank's GEMMs over its compute stream; comm ms: transfers, overlapped) ----"
for log in "${tables[@]}"; do
  echo "# $log"
  grep -v '^==' "$LOGS/$log" | grep -v '^\[' || true
done
echo
if [ -f "$LOGS/multigpu-tests.log" ]; then
  echo "---- multi-GPU test summary ----"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? ran' "$LOGS/multigpu-tests.log" | tail -8
  echo
fi
echo "---- summary (logs in $LOGS) ----"
printf '%s\n' "${summary[@]}"
# Non-zero when a step failed (a skip is not a failure).
printf '%s\n' "${summary[@]}" | grep -q 'FAIL(' && exit 1
exit 0
