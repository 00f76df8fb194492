#!/usr/bin/env bash
# Installs everything tilekit needs to build and test, from Debian packages and PyPI.
# Safe to re-run: already-installed packages are skipped. Nothing is downloaded at build time.
set -euo pipefail

debs=(cmake g++ make pkg-config
      libcli11-dev nlohmann-json3-dev
      libopenblas-openmp-dev      # OpenBLAS, OpenMP variant (linked explicitly by CMake)
      libgtest-dev googletest
      clang-14 libclang-rt-14-dev libomp-14-dev)  # the asan preset: sanitizers, libFuzzer, OpenMP
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# numpy for the .npy round-trip tests, matplotlib for plots.
python3 - <<'PY' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check numpy matplotlib
import numpy, matplotlib
PY
echo "setup: dependencies present"
