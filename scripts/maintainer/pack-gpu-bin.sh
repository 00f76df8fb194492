#!/usr/bin/env bash
# pack-gpu-bin.sh — packs executables of a CUDA build, stripped, with the libraries bundled
# beside them (OpenBLAS and its runtime), into one xz archive to copy to a GPU machine
# (docs/gpu.md), kept small enough for a transfer limit. Each executable holds every CUDA kernel
# (about 80 MB stripped, 12–15 MB with xz), so pack only what the run needs.
#
# Usage: scripts/maintainer/pack-gpu-bin.sh BIN_DIR OUT.txz NAME [NAME...]
#   BIN_DIR  the build's bin/ folder (build-gpu/bin)
#   OUT.txz  the pack to write; put it in a git-ignored folder of the checkout (build-gpu/)
#   NAME     executables (or libtilekit_blas.so) from BIN_DIR: tilekit, tilekit_gpu_tests, …
# The check scripts take the pack in place of a folder:
#   scripts/maintainer/gpu-check.sh build-gpu/check.txz   (on the GPU machine, the pack copied over)
# MAX_MIB: the largest pack accepted (default 64; 0: no limit). A larger pack is still written,
# and the exit status is 1.
set -euo pipefail

if [ $# -lt 3 ]; then
  # The leading comment block, to its end.
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { print }' "$0" >&2
  exit 2
fi
bin_dir=$1
out=$2
shift 2
[ -d "$bin_dir" ] || { echo "pack-gpu-bin: no folder $bin_dir" >&2; exit 2; }
max_mib=${MAX_MIB:-64}
[[ "$max_mib" =~ ^[0-9]+$ ]] || { echo "pack-gpu-bin: MAX_MIB wants whole MiB: $max_mib" >&2; exit 2; }
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
if [ "$max_mib" -gt 0 ] && [ "$bytes" -gt $((max_mib * 1048576)) ]; then
  echo "pack-gpu-bin: over $max_mib MiB (MAX_MIB); pack fewer executables" >&2
  exit 1
fi
