#!/usr/bin/env bash
# pack-blas-gpu-tools.sh — collects what scripts/gpu-blas-check.sh needs on a GPU machine that
# has no Debian packages: the netlib level-3 testers of Debian's libblas-test (xblat3s for the
# Fortran interface, xscblat3 for CBLAS), their input files, the reference BLAS they are run
# over (libblas.so.3, with its CBLAS), and the Fortran runtime they need. About 4 MB.
#
#   scripts/pack-blas-gpu-tools.sh DIR      e.g. build-cuda/blas-tools (travels with the build)
#
# Needs libblas-test and libblas3 installed here (scripts/setup.sh installs them).
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
dest=$1
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
{
  echo "packed $(date -u +%FT%TZ) on $(hostname) from $src"
  dpkg-query -W -f='${Package} ${Version}\n' libblas-test libblas3 libgfortran5 2>/dev/null || true
  (cd "$dest" && sha256sum -- * | grep -v MANIFEST)
} >"$dest/MANIFEST"
echo "pack: $(du -sh "$dest" | cut -f1) in $dest: $(ls "$dest" | tr '\n' ' ')"
