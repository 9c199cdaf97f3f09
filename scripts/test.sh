#!/usr/bin/env bash
# test.sh - setup and build, then run the whole test suite (unit tests per layer and end-to-end goldens).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The --html test loads pages in headless Chromium (tests/e2e/test_html_timeline.py; skipped without it).
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "test: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
ctest --test-dir build --output-on-failure -j"$(nproc)"
