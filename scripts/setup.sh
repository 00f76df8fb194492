#!/usr/bin/env bash
# Installs everything tilekit needs to build, test and plot, on Debian 12 (bookworm), with or
# without the CUDA toolkit (which it never installs: CMake builds the CUDA backend only when nvcc
# is already there). Works from a fresh debootstrap root with only git in it.
#
#   scripts/setup.sh        quiet: prints one line when all is well; on a failure, the step, the
#                           command and its output
#   scripts/setup.sh -v     shows every command's output as it runs (or TILEKIT_SETUP_VERBOSE=1)
#
# Safe to re-run: packages already installed are skipped, and with nothing missing it touches
# nothing and needs no network. Runs as root, or as a user with sudo (only apt-get uses it).
# Python packages come from Debian (python3-numpy, python3-matplotlib) for Debian's python3;
# pip is never run against Debian's Python (PEP 668 forbids it). A python3 on PATH that is not
# Debian's (pyenv, an activated venv, conda) and lacks them gets them from its own pip. The Python
# package's tools (nanobind, scikit-build-core, pytest: python/requirements-dev.txt, pinned) go
# from PyPI into the project's own venv, .venv-dev, which CMake then uses for the bindings.
# Nothing is downloaded at build time: CMake only finds what this script installed.
#
# The Debian packages come first, and a failure there stops the script: they are everything the
# C++ build and its tests need. A pip install that fails (a proxy, a network that intercepts TLS,
# no route to PyPI) only warns, naming the settings to look at, and the script goes on and exits
# 0, so the build can start; without nanobind in .venv-dev, CMake leaves the Python module out
# and says so.
set -euo pipefail

verbose="${TILEKIT_SETUP_VERBOSE:-0}"
case "${1:-}" in
  -v|--verbose) verbose=1 ;;
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  "") ;;
  *) echo "setup: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/tilekit-setup.XXXXXX")"
trap 'rm -rf "$work"' EXIT

die() { echo "setup: error: $*" >&2; exit 1; }

# step DESCRIPTION COMMAND...: runs COMMAND with its output kept aside; on failure says which step
# failed, the exact command, and its output, then stops. -v shows the output as it comes instead.
step() {
  local what="$1"; shift
  if [ "$verbose" = 1 ]; then
    # stderr, so a step inside $(...) cannot mix its output into the captured value
    echo "setup: $what: $*" >&2
    local vrc=0
    "$@" >&2 || vrc=$?
    [ "$vrc" -eq 0 ] || die "$what failed (exit $vrc): $*"
    return 0
  fi
  local rc=0
  "$@" >"$work/step.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    {
      echo "setup: error: $what failed (exit $rc)"
      echo "setup: command: $*"
      echo "setup: its output:"
      sed 's/^/  | /' "$work/step.log"
    } >&2
    exit 1
  fi
}

# pip_step DESCRIPTION NEEDED_BY COMMAND...: step for a pip command that downloads from PyPI. Its
# failure does not stop the script: the Debian packages, all that the C++ build needs, are in by
# then, and a network that keeps pip from PyPI should not keep the build from starting. It warns
# instead, with the tail of pip's output (its last lines name the cause), the settings that
# usually fix it and NEEDED_BY (what goes without), and returns 1 so the caller skips what
# depended on it.
pip_failures=0
pip_step() {
  local what="$1" needed_by="$2"; shift 2
  local rc=0
  if [ "$verbose" = 1 ]; then
    echo "setup: $what: $*" >&2
    "$@" >&2 || rc=$?
  else
    "$@" >"$work/step.log" 2>&1 || rc=$?
  fi
  [ "$rc" -ne 0 ] || return 0
  pip_failures=$((pip_failures + 1))
  {
    echo "setup: warning: $what failed (exit $rc); going on without it"
    if [ "$verbose" != 1 ]; then
      echo "setup: the last lines of pip's output (scripts/setup.sh -v shows all of it):"
      tail -n 5 "$work/step.log" | sed 's/^/  | /'
    fi
    echo "setup: pip needs to reach PyPI. Behind a proxy, set HTTPS_PROXY (or https_proxy);"
    echo "  where the network intercepts TLS, point pip at its CA bundle: PIP_CERT=/path/to/ca.pem,"
    echo "  or \`$1 -m pip config set global.cert /path/to/ca.pem\`, or REQUESTS_CA_BUNDLE;"
    echo "  for a PyPI mirror, PIP_INDEX_URL. Then re-run scripts/setup.sh."
    echo "setup: $needed_by"
  } >&2
  return 1
}

# ---- Debian packages -----------------------------------------------------------------------------
command -v apt-get >/dev/null && command -v dpkg-query >/dev/null ||
  die "apt-get not found: this script supports Debian 12 (bookworm); elsewhere install the packages listed in docs/building.md"
if [ -r /etc/os-release ]; then
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ "$codename" = bookworm ] ||
    echo "setup: warning: made for Debian 12 (bookworm), this is '${codename:-unknown}'; trying anyway" >&2
fi

debs=(
  # the build: compiler, CMake, git (the build records the commit), the libraries CMake finds
  cmake g++ make pkg-config git
  libcli11-dev                 # the CLI's argument parsing
  nlohmann-json3-dev           # --json output
  libopenblas-openmp-dev       # OpenBLAS, OpenMP variant (linked explicitly by CMake)
  libgtest-dev googletest      # the C++ test suites
  # the drop-in BLAS's conformance tests: netlib's testers and the reference BLAS they run over
  # (libblas-test alone would take OpenBLAS as its libblas.so.3)
  libblas-test libblas3
  # Python for the CLI test (NumPy writes its .npy inputs) and the plots; from Debian, not pip
  python3 python3-numpy python3-matplotlib
  # the Python package (python/): headers for the nanobind module, venv for .venv-dev
  python3-dev python3-venv
  # clang with its sanitizer and libFuzzer runtimes (ASan, UBSan, -fsanitize=fuzzer) and its
  # OpenMP. The unversioned metapackages follow Debian's default clang (14 on bookworm:
  # libclang-rt-dev pulls libclang-rt-14-dev, libomp-dev pulls libomp-14-dev); with
  # --no-install-recommends clang alone would not bring the runtimes.
  clang libclang-rt-dev libomp-dev
  # scripts/maintainer/pack-gpu-bin.sh (and its test): strip and xz
  binutils xz-utils
)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null; then
    as_root=(sudo)     # sudo resets the environment: pass apt's settings through `env`
  else
    die "not root and no sudo: run as root, or install sudo; missing packages: ${missing[*]}"
  fi
  # Non-interactive so no prompt hangs a CI run; wait for the dpkg lock (a fresh cloud machine
  # often runs unattended-upgrades at boot) instead of failing at once.
  apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o Dpkg::Use-Pty=0
       -o DPkg::Lock::Timeout=600)
  echo "setup: installing ${#missing[@]} Debian packages (a few minutes the first time): ${missing[*]}"
  # Always refresh the lists first: a fresh root has none, and stale ones point at removed files.
  # A dpkg run cut short (Ctrl-C in an earlier setup) blocks every apt-get install until it is
  # finished; with nothing pending this does nothing.
  step "dpkg --configure -a" "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive dpkg --configure -a
  step "apt-get update" "${apt[@]}" update
  step "apt-get install" "${apt[@]}" install -y --no-install-recommends "${missing[@]}"
fi

# ---- Python ----------------------------------------------------------------------------------------
# Two interpreters matter, and they need not be Debian's /usr/bin/python3:
#  - the one CMake's find_package(Python3) picks (tests/CMakeLists.txt): it runs the CLI test,
#    which needs numpy;
#  - `python3` first on PATH: `tilekit report` and `tilekit occupancy --plot` run it for the
#    plots, which need matplotlib.
# Debian's python3 got python3-numpy and python3-matplotlib above. When another interpreter comes
# first (pyenv, an activated venv, conda, a /usr/local build) and lacks them, they are installed
# into *that* interpreter with its own pip: it is not the system Python. An interpreter that is
# managed by a distribution (PEP 668's EXTERNALLY-MANAGED marker, outside a venv) is never
# pip-installed into: the script stops and says what to do.
cmake_python() {   # the interpreter CMake would pick, found the way tests/CMakeLists.txt finds it
  mkdir -p "$work/probe"
  cat >"$work/probe/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(tilekit_python_probe NONE)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
file(WRITE "${CMAKE_BINARY_DIR}/python3.txt" "${Python3_EXECUTABLE}")
EOF
  step "finding the Python CMake uses (find_package(Python3))" \
    cmake -S "$work/probe" -B "$work/probe/build"
  cat "$work/probe/build/python3.txt"
}

pythons=()
command -v python3 >/dev/null && pythons+=("$(command -v python3)")
pythons+=("$(cmake_python)")

# Prints the interpreter's prefix (what tells a venv from its base, which share one executable),
# a tab, and "managed" when pip must not touch it.
describe_python() {
  "$1" - <<'PY'
import os, sys, sysconfig
in_venv = sys.prefix != sys.base_prefix
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
print(sys.prefix, "managed" if (not in_venv and os.path.exists(marker)) else "free", sep="\t")
PY
}

seen=()
for py in "${pythons[@]}"; do
  info="$(describe_python "$py")" || die "cannot run $py"
  prefix="${info%%$'\t'*}"; kind="${info#*$'\t'}"
  case " ${seen[*]} " in *" $prefix "*) continue ;; esac
  seen+=("$prefix")
  "$py" -c 'import numpy, matplotlib' >/dev/null 2>&1 && continue
  if [ "$kind" = managed ]; then
    if [ "$prefix" = /usr ]; then   # Debian's: the apt packages above should have done it
      step "importing numpy and matplotlib in Debian's Python" "$py" -c 'import numpy, matplotlib'
    fi
    die "$py (prefix $prefix) lacks numpy or matplotlib and is managed by its distribution, so" \
        "pip must not install into it: install them with its package manager, or put a Python" \
        "that has them first on PATH (or configure with -DPython3_EXECUTABLE=/usr/bin/python3)"
  fi
  echo "setup: $py (prefix $prefix) is not Debian's Python and lacks numpy or matplotlib: installing them into it with its pip"
  "$py" -m pip --version >/dev/null 2>&1 || step "bootstrapping pip in $py" "$py" -m ensurepip --upgrade
  if pip_step "pip install numpy matplotlib into $py" \
       "the C++ build does not need them; the CLI test (ctest -R '^cli\$') needs numpy in the Python CMake picks, the plots need matplotlib in python3 on PATH. Debian's /usr/bin/python3 has both: cmake -DPython3_EXECUTABLE=/usr/bin/python3 uses it." \
       "$py" -m pip install --quiet --disable-pip-version-check numpy matplotlib; then
    step "importing numpy and matplotlib in $py" "$py" -c 'import numpy, matplotlib'
  fi
done

# ---- the Python package's tools: .venv-dev ------------------------------------------------------------
# nanobind (the bindings), scikit-build-core (`pip install .`) and pytest (tests/python), at the
# versions python/requirements-dev.txt pins, from PyPI into a venv of the Python CMake picks, made
# with --system-site-packages so that it sees that Python's NumPy. python/CMakeLists.txt uses
# .venv-dev/bin/python when it exists. Nothing is installed when the pins are already met.
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-dev"
requirements="$root/python/requirements-dev.txt"
cmake_py="${pythons[${#pythons[@]}-1]}"
pins_met() {   # true when the venv runs and holds exactly the pinned versions
  "$venv/bin/python" - "$requirements" <<'PY' >/dev/null 2>&1
import re, sys
from importlib.metadata import version
pins = re.findall(r"^([\w-]+)==([\w.]+)", open(sys.argv[1]).read(), re.M)
sys.exit(0 if pins and all(version(n) == v for n, v in pins) else 1)
PY
}
venv_ready=1
if ! pins_met; then
  echo "setup: installing python/requirements-dev.txt (nanobind, scikit-build-core, pytest) into $venv"
  "$venv/bin/python" -c 'import sys' >/dev/null 2>&1 ||
    step "creating the venv $venv" "$cmake_py" -m venv --clear --system-site-packages "$venv"
  # pip downloads every pin before it installs any, so a failed download leaves the venv as it
  # was: on a first run without nanobind, where CMake builds all but the Python module.
  if pip_step "pip install -r python/requirements-dev.txt into $venv" \
       "the C++ build and its tests do not need it: CMake leaves the Python module and its tests (python_tests) out and says so ('tilekit: Python module skipped'); re-configure after a successful re-run to bring them in." \
       "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"; then
    pins_met || die "$venv still lacks the versions python/requirements-dev.txt pins"
  else
    venv_ready=0
  fi
fi
# Not after a failed pip install of numpy: the venv sees only its base Python's, and the warning
# above already said what goes without it.
if ((venv_ready && !pip_failures)); then
  step "importing numpy in $venv (from $cmake_py)" "$venv/bin/python" -c 'import numpy'
fi

if ((pip_failures)); then
  echo "setup: done, except $pip_failures pip install(s) from PyPI (warnings above): the Debian packages, all that the C++ build and its tests need, are in"
else
  echo "setup: ok (Debian packages present; numpy and matplotlib in the Python at ${seen[*]}; nanobind, scikit-build-core and pytest in .venv-dev)"
fi
