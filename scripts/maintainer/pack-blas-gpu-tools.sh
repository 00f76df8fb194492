#!/usr/bin/env bash
# pack-blas-gpu-tools.sh — collects what scripts/maintainer/gpu-blas-check.sh needs on a GPU
# machine that has no Debian packages: the netlib level-3 testers of Debian's libblas-test (xblat3s for the
# Fortran interface, xscblat3 for CBLAS), their input files, the reference BLAS they are run
# over (libblas.so.3, with its CBLAS), and the Fortran runtime they need (about 4 MB). Given a
# CUDA build folder too, it also copies into DIR/bin the files of that build the check runs
# (libtilekit_blas.so, tilekit_blas_bench and the bundled OpenBLAS runtime, about 46 MB), so
# that DIR alone travels and serves as both arguments of the check.
#
#   scripts/maintainer/pack-blas-gpu-tools.sh DIR [BUILD_DIR]
#   e.g. scripts/maintainer/pack-blas-gpu-tools.sh build-cuda/blas-gpu build-cuda
#        then, on the GPU machine:
#        scripts/maintainer/gpu-blas-check.sh build-cuda/blas-gpu build-cuda/blas-gpu
#
# Needs libblas-test and libblas3 installed here (scripts/setup.sh installs them).
set -euo pipefail
[ $# -eq 1 ] || [ $# -eq 2 ] || { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 2; }
dest=$1
build=${2:-}
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
src=/usr/lib/$arch/blas
for f in xblat3s xscblat3 sblat3.in sin3 libblas.so.3; do
  [ -e "$src/$f" ] || { echo "pack: $src/$f is missing: install libblas-test and libblas3 (scripts/setup.sh)" >&2; exit 1; }
done
mkdir -p "$dest"
for f in xblat3s xscblat3 sblat3.in sin3 libblas.so.3; do
  cp -L "$src/$f" "$dest/$f"
done
# The testers' runtime libraries that a machine without gfortran lacks, found as ldd finds them.
for lib in libgfortran.so.5 libquadmath.so.0; do
  path=$(LD_LIBRARY_PATH=$src ldd "$src/xblat3s" | awk -v l="$lib" '$1 == l {print $3}')
  [ -n "$path" ] && cp -L "$path" "$dest/$lib"
done
if [ -n "$build" ]; then
  mkdir -p "$dest/bin"
  for f in libtilekit_blas.so tilekit_blas_bench libopenblas.so.0 libgfortran.so.5 libgomp.so.1 \
           libquadmath.so.0; do
    [ -e "$build/bin/$f" ] || { echo "pack: $build/bin/$f is missing: build the targets tilekit_blas and tilekit_blas_bench" >&2; exit 1; }
    cp -L "$build/bin/$f" "$dest/bin/$f"
  done
fi
{
  echo "packed $(date -u +%FT%TZ) on $(hostname) from $src${build:+ and $build/bin}"
  echo "commit $(git -C "$(dirname "$0")/../.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
  dpkg-query -W -f='${Package} ${Version}\n' libblas-test libblas3 libgfortran5 2>/dev/null || true
  (cd "$dest" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} >"$dest/MANIFEST"
echo "pack: $(du -sh "$dest" | cut -f1) in $dest: $(ls "$dest" | tr '\n' ' ')"
