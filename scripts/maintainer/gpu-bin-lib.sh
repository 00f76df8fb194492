# gpu-bin-lib.sh — sourced by the GPU check scripts (not run on its own).
#
# resolve_bin PATH: prints the folder of executables PATH stands for. PATH is either such a
# folder (build-gpu/bin) or a pack of one (bin/… in a .txz, .tar.xz, .tgz or .tar.gz, as
# scripts/maintainer/pack-gpu-bin.sh makes them to copy to a GPU machine), which is unpacked
# into a new temporary folder first. The executables find their bundled libraries beside them
# ($ORIGIN in their run path), wherever they are unpacked.
resolve_bin() {
  local bin=$1
  case "$bin" in
    *.txz | *.tar.xz | *.tgz | *.tar.gz)
      [ -f "$bin" ] || { echo "no pack at $bin" >&2; return 1; }
      local dir
      dir=$(mktemp -d) || return 1
      tar xaf "$bin" -C "$dir" || { echo "cannot unpack $bin" >&2; return 1; }
      [ -d "$dir/bin" ] || { echo "$bin holds no bin/ folder" >&2; return 1; }
      bin="$dir/bin"
      ;;
  esac
  echo "$bin"
}
