#!/usr/bin/env bash
# test.sh - setup and build, then run the whole test suite (unit tests per layer and end-to-end goldens).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
