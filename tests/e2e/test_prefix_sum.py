"""End to end: examples/prefix_sum.py (tensor_tensor_scan chained across 512-column chunks) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(EXAMPLES, "prefix_sum.py")
d = tmpdir()
rng = np.random.default_rng(15)

# The scan computes r = 1*r + x[j] in fp32, left to right: exactly numpy's sequential float32 cumsum.
for M, N in ((128, 1024), (130, 512), (1, 1536)):
    x = rng.normal(size=(M, N)).astype(np.float32)
    out = os.path.join(d, f"out{M}x{N}")
    rc, so, se = run(KERNEL, "--inputs", save(d, f"x{M}_{N}.npy", x), "-o", out, "-q")
    check_equal(rc, 0, f"exit code for ({M}, {N}) (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    g = np.cumsum(x, axis=1, dtype=np.float32)
    check(np.array_equal(y, g), f"({M}, {N}): max difference {float(np.max(np.abs(y - g)))}")

rc, so, se = run(KERNEL, "--inputs", save(d, "bad.npy", np.zeros((4, 100), np.float32)), "-o", os.path.join(d, "bad"))
check_equal(rc, 1, "N not a multiple of 512 is a located error")
check("N must be a multiple of 512, got 100" in se, f"diagnostic: {se}")
finish()
