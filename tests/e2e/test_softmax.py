"""End to end: examples/softmax.py (tensor_reduce max, activation exp + accumulator, reciprocal) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(EXAMPLES, "softmax.py")
d = tmpdir()
rng = np.random.default_rng(11)


def golden(x):
    """The kernel's own fp32 recipe: max, exp(x - max) rounded once to fp32, a sequential fp32 row sum (cumsum is
    sequential), fp32 reciprocal and product."""
    m = x.max(axis=1, keepdims=True)
    e = np.exp((x - m).astype(np.float64)).astype(np.float32)
    s = np.cumsum(e, axis=1, dtype=np.float32)[:, -1:]
    return (e * (np.float32(1.0) / s)).astype(np.float32)


def ulps(a, b):
    """Distance in float32 ulps (same-sign finite values; 0 for identical values)."""
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


# Tolerance: the simulator evaluates exp with libm's expf in fp32 (glibc: < 1 ulp, almost always the correctly
# rounded value, which the golden uses), so an exponential may differ by 1 ulp and the row sum and the final
# product inherit at most about one more: 2 ulps. Max, summation order and every other rounding follow the same
# recipe. A float64 softmax is also checked to 4e-6 relative as a sanity bound (fp32 sum of up to 1024 terms).
for shape, extra in (((128, 512), []), ((200, 64), ["--arg", "use_accumulator=False"]), ((1, 1), []),
                     ((130, 1024), [])):
    x = rng.normal(0, 3, shape).astype(np.float32)
    if shape == (128, 512):
        x[3, :] = 0.0          # all ties: uniform row
        x[4, 7] = 80.0         # exp would overflow without the max shift
        x[5, :] = -np.inf      # ... except in column 0
        x[5, 0] = 1.0
    out = os.path.join(d, f"out{shape[0]}x{shape[1]}")
    rc, so, se = run(KERNEL, "--inputs", save(d, f"x{shape[0]}_{shape[1]}.npy", x), "-o", out, "-q", *extra)
    check_equal(rc, 0, f"exit code for {shape} {extra} (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    g = golden(x)
    u = int(ulps(y, g).max()) if y.shape == g.shape else -1
    check(0 <= u <= 2, f"{shape} {extra}: max difference {u} ulp")
    x64 = x.astype(np.float64)
    e64 = np.exp(x64 - x64.max(axis=1, keepdims=True))
    g64 = e64 / e64.sum(axis=1, keepdims=True)
    rel = float(np.max(np.abs(y - g64) / np.maximum(g64, 1e-30)))
    check(rel < 4e-6, f"{shape} {extra}: max relative error vs float64 {rel}")
    if shape == (128, 512):
        check(np.all(y[3] == np.float32(1.0 / 512)), "a row of ties is uniform")
        check(y[5, 0] == 1.0 and np.all(y[5, 1:] == 0.0), "-inf entries get probability 0")
finish()
