#!/usr/bin/env bash
# sass-loop.sh — the SASS of one kernel file, on a machine without a GPU: compiles FILE.cu as the
# build does (nvcc -O3 -std=c++17, -arch=sm_90, or sm_90a for the Hopper family under
# src/cuda/gemm/sm90/) to a cubin, disassembles it with cuobjdump and prints
# the summary of sass_control.py (beside this script) for each kernel (instruction mix, FFMA
# stall counts, reuse, the main loop's encoded stall cycles). Enough to compare two versions of
# a main loop before spending GPU time on them (docs/ladder.md, "Steps 13 and 14").
#
# Usage: scripts/maintainer/sass-loop.sh FILE.cu [FILTER]
#   FILTER  keep the kernels whose mangled name contains it (e.g. Lb0ELb0: the NN instance)
#   OUT     folder for the cubin, the listing and ptxas's report (default: a temporary one)
#
# cuobjdump: the one on PATH if any; otherwise the `nvidia-cuda-cuobjdump` and
# `nvidia-cuda-nvdisasm` wheels from PyPI (cuobjdump runs nvdisasm), installed on first use into
# .venv-sass/ (git-ignored), for a CUDA toolkit installed with nvcc and ptxas but without these
# two.
set -euo pipefail
SRC=${1:?usage: sass-loop.sh FILE.cu [FILTER]}
FILTER=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$SRC" ] || { echo "sass-loop: no file $SRC" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "sass-loop: nvcc is not on PATH" >&2; exit 2; }

cuobjdump_path() {
  if command -v cuobjdump >/dev/null; then command -v cuobjdump; return; fi
  local venv="$ROOT/.venv-sass"
  if ! ls "$venv"/lib/python3*/site-packages/nvidia/cu*/bin/nvdisasm >/dev/null 2>&1; then
    echo "sass-loop: installing the nvidia-cuda-cuobjdump and -nvdisasm wheels into $venv" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm >&2
  fi
  ls "$venv"/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump | head -1
}
CUOBJDUMP=$(cuobjdump_path)
chmod +x "$CUOBJDUMP" "$(dirname "$CUOBJDUMP")"/* 2>/dev/null || true
export PATH="$(dirname "$CUOBJDUMP"):$PATH"  # its nvdisasm

OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
ARCH=sm_90
case "$SRC" in */sm90/*) ARCH=sm_90a ;; esac
NAME=$(basename "$SRC" .cu)
nvcc -O3 -DNDEBUG -std=c++17 -cubin -arch="$ARCH" -DTILEKIT_CUDA_MIN_SM=90 -DTILEKIT_WITH_CUDA=1 \
  -I"$ROOT/include" -I"$ROOT/src" -Xptxas -v "$SRC" -o "$OUT/$NAME.cubin" 2>"$OUT/$NAME.ptxas"
"$CUOBJDUMP" -sass "$OUT/$NAME.cubin" >"$OUT/$NAME.sass"
echo "sass-loop: $ARCH, $(grep -c 'Function :' "$OUT/$NAME.sass") kernels; listing and ptxas report in $OUT" >&2
python3 "$(dirname "$0")/sass_control.py" "$OUT/$NAME.sass" |
  awk -v f="$FILTER" '/^[^ ]/ { keep = (f == "" || index($0, f) > 0) } keep'
