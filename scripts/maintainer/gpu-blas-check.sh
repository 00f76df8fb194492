#!/usr/bin/env bash
# gpu-blas-check.sh — libtilekit_blas on a GPU machine, in one go (docs/blas.md):
#   1. the netlib testers (xblat3s: Fortran sgemm_; xscblat3: cblas_sgemm, both layouts) with
#      libtilekit_blas preloaded over the reference BLAS, the GPU path forced
#      (TILEKIT_BLAS_DEVICE=gpu, TILEKIT_BLAS_MIN_FLOPS=0: every product on the GPU), then the
#      same on the CPU path;
#   2. the benchmark: one program (tilekit_blas_bench, linked to OpenBLAS) calling sgemm_ on
#      host operands at n = 4096 and 8192, run as is (OpenBLAS), with libtilekit_blas preloaded
#      (default settings, and with TILEKIT_BLAS_GPU_KERNEL=gemm.cuda.cublas.f32), and with
#      NVBLAS preloaded (its default configuration and with NVBLAS_AUTOPIN_MEM_ENABLED); the
#      median of REPS timed calls after a warm-up, each result checked;
# and prints a summary table last. Logs go to $OUT/blas-gpu-check (or ./blas-gpu-check).
#
#   scripts/maintainer/gpu-blas-check.sh BUILD_DIR TOOLS_DIR
#     BUILD_DIR  a CUDA build (bin/libtilekit_blas.so, bin/tilekit_blas_bench,
#                bin/libopenblas.so.0)
#     TOOLS_DIR  made by scripts/maintainer/pack-blas-gpu-tools.sh (testers, inputs, reference
#                BLAS)
#   Environment: SIZES (default 4096,8192), REPS (5), TRANS (NN), BETA (0), NVBLAS_LIB (path
#   to libnvblas.so; default: searched in the CUDA toolkit).
# Exit 0 when every step passed and libtilekit_blas (default settings) is >= 1.0× the better
# NVBLAS row at every size; 1 otherwise.
set -uo pipefail

[ $# -eq 2 ] || { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 2; }
BUILD=$(realpath "$1")
TOOLS=$(realpath "$2")
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SIZES=${SIZES:-4096,8192}
REPS=${REPS:-5}
TRANS=${TRANS:-NN}
BETA=${BETA:-0}
LOGS=${OUT:-.}/blas-gpu-check
mkdir -p "$LOGS"
LOGS=$(realpath "$LOGS")
LIB=$BUILD/bin/libtilekit_blas.so
BENCH=$BUILD/bin/tilekit_blas_bench
declare -a summary
status=0

step() {  # step NAME LOGFILE COMMAND...
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" | tee "$LOGS/$log"
  "$@" >>"$LOGS/$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-44s %-8s %4ss  %s' "$name" "$([ $rc -eq 0 ] && echo PASS || echo "FAIL($rc)")" $((SECONDS - t0)) "$log")")
  [ $rc -eq 0 ] || status=1
  return $rc
}

for f in "$LIB" "$BENCH" "$BUILD/bin/libopenblas.so.0"; do
  [ -e "$f" ] || { echo "gpu-blas-check: $f is missing (a CUDA build of tilekit_blas and tilekit_blas_bench)"; exit 2; }
done

# ---- machine ---------------------------------------------------------------------------------------
{
  echo "commit: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
       "(tools: $(sed -n 's/^commit //p' "$TOOLS/MANIFEST" 2>/dev/null || echo unknown))"
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
    --format=csv,noheader 2>&1 || echo "nvidia-smi: not available"
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
} | tee "$LOGS/machine.log"

# ---- 1. the netlib testers ---------------------------------------------------------------------------
RUNNER=$REPO/tests/blas/run_netlib_tester.sh
step "netlib xblat3s (sgemm_), GPU forced" tester-fortran-gpu.log bash "$RUNNER" fortran "$LIB" "$TOOLS" --gpu
step "netlib xscblat3 (cblas_sgemm), GPU forced" tester-cblas-gpu.log bash "$RUNNER" cblas "$LIB" "$TOOLS" --gpu
step "netlib xblat3s (sgemm_), CPU" tester-fortran-cpu.log bash "$RUNNER" fortran "$LIB" "$TOOLS"
step "netlib xscblat3 (cblas_sgemm), CPU" tester-cblas-cpu.log bash "$RUNNER" cblas "$LIB" "$TOOLS"

# ---- 2. the benchmark --------------------------------------------------------------------------------
find_nvblas() {
  [ -n "${NVBLAS_LIB:-}" ] && { echo "$NVBLAS_LIB"; return; }
  local d
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x)")")" \
           /usr/local/cuda; do
    [ -n "$d" ] || continue
    for f in "$d"/lib64/libnvblas.so* "$d"/targets/x86_64-linux/lib/libnvblas.so*; do
      [ -e "$f" ] && { echo "$f"; return; }
    done
  done
  ldconfig -p 2>/dev/null | awk '/libnvblas\.so/ {print $NF; exit}'
}
NVBLAS=$(find_nvblas)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bench() {  # bench LABEL [VAR=VALUE...]: one process, all sizes
  local label=$1
  shift
  step "bench $label" "bench-$label.log" env "$@" "$BENCH" --sizes "$SIZES" --reps "$REPS" \
    --trans "$TRANS" --beta "$BETA" --label "$label"
}

# OpenBLAS picks its kernels from CPUID, and on a virtual machine's CPU it has chosen SSE3 ones
# (docs/gpu.md, "Notes"): name the core type the CPU's flags allow, unless the caller did.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}" | tee -a "$LOGS/machine.log"

bench openblas
if [ -n "$NVBLAS" ] && [ -e "$NVBLAS" ]; then
  # NVBLAS reads its settings from a file; the CPU BLAS it falls back to is the same OpenBLAS.
  for autopin in 0 1; do
    conf=$work/nvblas-$autopin.conf
    {
      echo "NVBLAS_LOGFILE $LOGS/nvblas-$autopin.log"
      echo "NVBLAS_CPU_BLAS_LIB $BUILD/bin/libopenblas.so.0"
      echo "NVBLAS_GPU_LIST ALL"
      echo "NVBLAS_TILE_DIM 2048"
      [ $autopin = 1 ] && echo "NVBLAS_AUTOPIN_MEM_ENABLED"
    } >"$conf"
    label=nvblas; [ $autopin = 1 ] && label=nvblas-autopin
    bench "$label" NVBLAS_CONFIG_FILE="$conf" \
      LD_LIBRARY_PATH="$(dirname "$NVBLAS")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$NVBLAS"
  done
else
  summary+=("$(printf '%-44s %-8s' "bench nvblas" "absent (libnvblas.so not found; set NVBLAS_LIB)")")
  status=1
fi
bench tilekit LD_PRELOAD="$LIB" TILEKIT_BLAS_LOG=2
bench tilekit-cublas LD_PRELOAD="$LIB" TILEKIT_BLAS_LOG=2 TILEKIT_BLAS_GPU_KERNEL=gemm.cuda.cublas.f32

# ---- summary -----------------------------------------------------------------------------------------
echo
echo "---- sgemm_ on host operands ($TRANS, beta = $BETA, median of $REPS): ms (GFLOP/s) ----"
cat "$LOGS"/bench-*.log | grep '^blas-bench' >"$work/rows"
ms() { awk -v l="$1" -v n="$2" '{for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
        if (v["label"] == l && v["n"] == n && v["check"] == "pass") {print v["median_ms"]; exit}}' "$work/rows"; }
cell() { local t; t=$(ms "$1" "$2"); [ -n "$t" ] && awk -v t="$t" -v n="$2" 'BEGIN {printf "%.2f (%.0f)", t, 2*n*n*n/(t*1e6)}' || echo "-"; }
ratio() { local a b; a=$(ms "$1" "$3"); b=$(ms "$2" "$3"); [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", b/a}' || echo "-"; }
labels=(tilekit tilekit-cublas nvblas nvblas-autopin openblas)
{
  printf '| n | %s | tilekit vs best NVBLAS | tilekit vs OpenBLAS |\n' "$(IFS='|'; echo "${labels[*]}" | sed 's/|/ | /g')"
  printf '|---|%s---|---|\n' "$(printf -- '---|%.0s' "${labels[@]}")"
  for n in ${SIZES//,/ }; do
    best=nvblas
    a=$(ms nvblas "$n"); b=$(ms nvblas-autopin "$n")
    if [ -n "$b" ] && { [ -z "$a" ] || awk -v a="$a" -v b="$b" 'BEGIN {exit !(b < a)}'; }; then best=nvblas-autopin; fi
    row="| $n |"
    for l in "${labels[@]}"; do row+=" $(cell "$l" "$n") |"; done
    vs_nv=$(ratio tilekit "$best" "$n")
    row+=" ${vs_nv}× ($best) | $(ratio tilekit openblas "$n")× |"
    echo "$row"
    awk -v r="$vs_nv" 'BEGIN {exit !(r != "-" && r + 0 >= 1.0)}' || status=1
  done
} | tee "$LOGS/table.md"
grep -h 'check=FAIL' "$LOGS"/bench-*.log && { echo "a benchmark result failed its check (above)"; status=1; }
echo
echo "routing of the tilekit runs (TILEKIT_BLAS_LOG=2, the last call per size):"
for l in tilekit tilekit-cublas; do
  for n in ${SIZES//,/ }; do
    grep -h "^tilekit_blas: sgemm_ .* m=$n n=$n k=$n " "$LOGS/bench-$l.log" | tail -1 | sed "s/^/$l: /"
  done
done
echo
echo "---- steps ----"
printf '%s\n' "${summary[@]}"
echo "gpu-blas-check: $([ $status -eq 0 ] && echo PASS || echo FAIL) (logs in $LOGS)"
exit $status
