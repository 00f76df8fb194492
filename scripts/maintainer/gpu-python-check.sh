#!/usr/bin/env bash
# The Python package on a GPU machine, from a CUDA build folder made elsewhere, without network:
#
#   scripts/maintainer/gpu-python-check.sh BUILD_DIR
#   e.g. scripts/maintainer/gpu-python-check.sh build-gpu
#
#  1. the module: BUILD_DIR/python/tilekit when it was built for this machine's python3 (same
#     extension suffix); else it is built here, in BUILD_DIR/python-here, by python/CMakeLists.txt
#     standalone against BUILD_DIR/libtilekit.a (the CUDA backend; OpenBLAS from BUILD_DIR/bin),
#     with this machine's python3, nanobind, CMake and CUDA toolkit — nothing is downloaded.
#     Prefer the first: the module must come from the compiler that built libtilekit.a (one built
#     on the H200 by its GCC 13 against our GCC 12 archive crashed in the CPU blocked kernel;
#     docs/gpu.md shows how to build BUILD_DIR/python here for the GPU machine's Python);
#  2. the pytest suite (tests/python) with TILEKIT_REQUIRE_GPU=1: the GPU tests must run;
#  3. the overhead benchmark (scripts/maintainer/python_overhead.py) against tilekit_gemm_call_time;
# then a PASS/FAIL summary, last. Logs and the JSON figures go to $OUT if set, else
# ./gpu-python-check-logs/. Needs from BUILD_DIR only libtilekit.a and the OpenBLAS runtime in
# bin/ (libopenblas.so.0, libgfortran.so.5, libquadmath.so.0, libgomp.so.1).
# Environment: PYTHON (default python3), BENCH_N (64), BENCH_LARGE (4096), TILEKIT_REQUIRE_GPU
# (default 1; 0 lets the GPU tests skip, to try the script on a machine without a GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
build="${1:?usage: scripts/maintainer/gpu-python-check.sh BUILD_DIR}"
build="$(cd "$build" && pwd)" || exit 2
py="${PYTHON:-python3}"
logs="${OUT:-$PWD/gpu-python-check-logs}"
mkdir -p "$logs"
declare -a summary
status=0
record() {  # record NAME RC
  if [ "$2" -eq 0 ]; then summary+=("PASS  $1"); else summary+=("FAIL  $1 (exit $2)"); status=1; fi
}

echo "== python: $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
"$py" -c 'import torch; print("== torch", torch.__version__, "cuda", torch.cuda.is_available())' || true

# ---- 1. the module ------------------------------------------------------------------------------
suffix="$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
pkg_parent=""
if [ -f "$build/python/tilekit/_tilekit$suffix" ]; then
  pkg_parent="$build/python"
  echo "== using the module built with the folder: $build/python/tilekit/_tilekit$suffix"
  cpp_bench="$build/python/tilekit_gemm_call_time"
  record "module found in $build/python" 0
else
  here="$build/python-here"
  echo "== building the module for $suffix in $here (log: $logs/module-build.log)"
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  with_cuda=OFF  # a CUDA build's archive calls the CUDA runtime
  grep -qa cudaGetDeviceCount "$build/libtilekit.a" 2>/dev/null && with_cuda=ON
  rm -rf "$here"
  {
    cmake -S python -B "$here" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTILEKIT_PREBUILT_DIR="$build" \
      -DTILEKIT_PREBUILT_CUDA=$with_cuda -DPython_EXECUTABLE="$(command -v "$py")" &&
      cmake --build "$here" -j"$(nproc)"
  } >"$logs/module-build.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || tail -40 "$logs/module-build.log"
  record "module built against $build/libtilekit.a" $rc
  pkg_parent="$here/python"
  cpp_bench="$here/python/tilekit_gemm_call_time"
fi

# The bundled OpenBLAS (and its Fortran runtime) for the module and the C++ benchmark.
export LD_LIBRARY_PATH="$build/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$pkg_parent${PYTHONPATH:+:$PYTHONPATH}"
"$py" -c 'import tilekit; print("== tilekit from", tilekit.__file__); print("== devices", tilekit.devices())'
rc=$?
cuda="$("$py" -c 'import tilekit; print(tilekit.built_with_cuda())' 2>/dev/null)"
record "import tilekit (CUDA backend: ${cuda:-?})" $rc

# ---- 2. the tests -----------------------------------------------------------------------------
require="${TILEKIT_REQUIRE_GPU:-1}"
echo "== pytest tests/python with TILEKIT_REQUIRE_GPU=$require (log: $logs/pytest.log)"
TILEKIT_REQUIRE_GPU=$require PYTHONUNBUFFERED=1 "$py" -m pytest -q -rs -p no:cacheprovider tests/python \
  --junitxml="$logs/python-tests.xml" 2>&1 | tee "$logs/pytest.log" | tail -25
rc=${PIPESTATUS[0]}
counts="$(grep -E '^[0-9]+ (passed|failed)|passed|failed' "$logs/pytest.log" | tail -1)"
record "pytest tests/python: $counts" $rc

# ---- 3. the overhead --------------------------------------------------------------------------
echo "== overhead benchmark (log: $logs/overhead.log)"
"$py" scripts/maintainer/python_overhead.py --cpp "$cpp_bench" --n "${BENCH_N:-64}" \
  --large "${BENCH_LARGE:-4096}" --json "$logs/overhead.json" 2>&1 | tee "$logs/overhead.log"
record "overhead benchmark ran" "${PIPESTATUS[0]}"

echo
echo "==== gpu-python-check summary ($(git rev-parse --short HEAD 2>/dev/null || echo '?'), $build)"
grep -E '^(C\+\+|tilekit|torch|[0-9]+\^3|overhead)' "$logs/overhead.log" 2>/dev/null
for line in "${summary[@]}"; do echo "$line"; done
exit $status
