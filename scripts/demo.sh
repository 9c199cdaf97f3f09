#!/usr/bin/env bash
# demo.sh - setup and build nki-sim (only it: the tests are built by test.sh), then run examples/tensor_add.py
# on random inputs and check it against numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh nki-sim
mkdir -p build/demo
/usr/bin/python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(0)
np.save("build/demo/a.npy", rng.standard_normal((256, 1024), dtype=np.float32))
np.save("build/demo/b.npy", rng.standard_normal((256, 1024), dtype=np.float32))
PY
./build/nki-sim examples/tensor_add.py --inputs build/demo/a.npy build/demo/b.npy -o build/demo/out \
  --stats build/demo/stats.json --trace build/demo/trace.json
/usr/bin/python3 - <<'PY'
import numpy as np
a, b = np.load("build/demo/a.npy"), np.load("build/demo/b.npy")
c = np.load("build/demo/out/output_0.npy")
assert c.dtype == np.float32 and c.shape == a.shape and np.array_equal(c, a + b), "output differs from numpy"
print("output_0.npy equals numpy's a + b exactly; timeline: build/demo/trace.json (open in ui.perfetto.dev)")
PY
