#!/usr/bin/env bash
# setup.sh - installs the Debian packages nki-sim needs (only missing ones, quietly) and builds build/:
# everything (the tools, the Python package and the tests), or only the targets named (setup.sh nki-sim).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(g++ cmake ninja-build libeigen3-dev libboost-program-options-dev libxtensor-dev xtl-dev doctest-dev
      nlohmann-json3-dev python3-numpy libopenblas0-pthread pybind11-dev python3-dev python3-pytest)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
targets=("$@")
cmake --build build ${targets[@]+--target "${targets[@]}"} -- -j"$(nproc)" | grep -v '^\[' || true
for t in "${targets[@]:-nki-sim}"; do
  test -e "build/$t" || { echo "setup: build/$t was not built" >&2; exit 1; }
done
((${#targets[@]})) || ls build/python/nkisim/_nkisim*.so >/dev/null
