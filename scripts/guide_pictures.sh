#!/usr/bin/env bash
# guide_pictures.sh - regenerates every picture of the user guide (docs/guide/img/) with the project's own
# commands: the machine diagrams from the target descriptions (nki-target + scripts/machine_svg.py), and the
# timeline screenshots from nki-sim --html opened in headless Chromium. A picture whose tool is missing (no
# --html in this nki-sim, no chromium) is skipped with a message; the others are still made.
#   bash scripts/guide_pictures.sh [BUILD_DIR [OUT_DIR]]   (defaults: build, docs/guide/img)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
img=${2:-docs/guide/img}
py=/usr/bin/python3
mkdir -p "$img"

# 1. Machine diagrams (tests/docs/test_guide_pictures.py checks they match the target data).
for target in trn1 trn2 trn3; do
  $py scripts/machine_svg.py "$build/nki-target" "$target" "$img/machine-$target.svg"
  echo "made $img/machine-$target.svg"
done

# 2. Timeline screenshots: nki-sim --html, then headless Chromium.
if ! "$build/nki-sim" --help 2>&1 | grep -q -- "--html"; then
  echo "skipped timeline screenshots: this nki-sim has no --html"
  exit 0
fi
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
  echo "skipped timeline screenshots: no chromium (apt-get install chromium)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$py - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
r = np.random.default_rng(7)
np.save(f"{w}/a.npy", r.standard_normal((256, 1024), dtype=np.float32))
np.save(f"{w}/b.npy", r.standard_normal((256, 1024), dtype=np.float32))
np.save(f"{w}/lhs_t.npy", r.standard_normal((1024, 1024), dtype=np.float32))
np.save(f"{w}/rhs.npy", r.standard_normal((1024, 2048), dtype=np.float32))
PY
shot() {  # NAME KERNEL INPUTS...: run the kernel with --html and photograph the page
  local name=$1 kernel=$2
  shift 2
  "$build/nki-sim" "$kernel" --inputs "$@" -o "$work/out-$name" -q --html "$work/$name.html"
  "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,800 \
    --virtual-time-budget=5000 --screenshot="$(realpath "$img")/$name.png" "file://$work/$name.html" >/dev/null 2>&1
  echo "made $img/$name.png"
}
shot timeline-tensor-add examples/tensor_add.py "$work/a.npy" "$work/b.npy"
shot timeline-matmul-step1 docs/guide/kernels/mm1_naive.py "$work/lhs_t.npy" "$work/rhs.npy"
shot timeline-matmul-step4 docs/guide/kernels/mm4_need_order.py "$work/lhs_t.npy:bfloat16" "$work/rhs.npy:bfloat16"
