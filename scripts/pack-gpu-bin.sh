#!/usr/bin/env bash
# pack-gpu-bin.sh — packs executables of a CUDA build, stripped, with the libraries bundled
# beside them (OpenBLAS and its runtime), into one xz archive small enough for a 64 MiB limit
# on what is copied to the GPU machine (docs/gpu.md). Each executable holds every CUDA kernel
# (about 80 MB stripped, 12–15 MB with xz), so pack only what the run needs.
#
# Usage: scripts/pack-gpu-bin.sh BIN_DIR OUT.txz NAME [NAME...]
#   BIN_DIR  the build's bin/ folder (build-gpu/bin)
#   OUT.txz  the pack to write; put it in a git-ignored folder of the checkout (build-gpu/)
#   NAME     executables (or libtilekit_blas.so) from BIN_DIR: tilekit, tilekit_gpu_tests, …
# The check scripts take the pack in place of a folder:
#   scripts/gpu-check.sh build-gpu/check.txz   (on the GPU machine, with the pack copied over)
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
bin_dir=$1
out=$2
shift 2
[ -d "$bin_dir" ] || { echo "pack-gpu-bin: no folder $bin_dir" >&2; exit 2; }
for name in "$@"; do
  [ -f "$bin_dir/$name" ] || { echo "pack-gpu-bin: no $name in $bin_dir" >&2; exit 2; }
done

stage=$(mktemp -d)
tmp_out="$out.partial"  # written whole, then renamed: an earlier pack is never half replaced
trap 'rm -rf "$stage" "$tmp_out"' EXIT
mkdir "$stage/bin"
for name in "$@"; do
  cp "$bin_dir/$name" "$stage/bin/"
  strip "$stage/bin/$name"
done
# The bundled third-party libraries (the executables' run path starts with $ORIGIN); the
# project's own shared libraries travel only when named.
for lib in "$bin_dir"/lib*.so*; do
  [ -e "$lib" ] || continue
  case "$(basename "$lib")" in libtilekit*) continue ;; esac
  cp -P "$lib" "$stage/bin/"
done
tar cf - -C "$stage" bin | xz -T0 -6 > "$tmp_out"
mv "$tmp_out" "$out"
bytes=$(stat -c %s "$out")
echo "pack-gpu-bin: $out, $((bytes / 1048576)) MiB: $* and $(ls "$stage/bin" | grep -c '^lib') bundled libraries"
if [ "$bytes" -gt $((64 * 1048576)) ]; then
  echo "pack-gpu-bin: over 64 MiB, the limit on a pack for the GPU machine; pack fewer executables" >&2
  exit 1
fi
