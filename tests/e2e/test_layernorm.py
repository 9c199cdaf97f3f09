"""End to end: examples/layernorm.py (bn_stats / bn_aggr, rsqrt with a scalar bias) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(EXAMPLES, "layernorm.py")
d = tmpdir()
rng = np.random.default_rng(13)

for (M, D), eps in (((128, 512), 1e-5), ((130, 1024), 1e-5), ((3, 100), 0.1), ((1, 1), 1e-5)):
    x = rng.normal(4, 3, (M, D)).astype(np.float32)
    g = rng.normal(1, 0.2, (1, D)).astype(np.float32)
    b = rng.normal(0, 0.2, (1, D)).astype(np.float32)
    out = os.path.join(d, f"out{M}x{D}")
    rc, so, se = run(KERNEL, "--inputs", save(d, f"x{M}_{D}.npy", x), save(d, f"g{M}_{D}.npy", g),
                     save(d, f"b{M}_{D}.npy", b), "-o", out, "-q", "--arg", f"eps={eps}")
    check_equal(rc, 0, f"exit code for ({M}, {D}) (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    x64 = x.astype(np.float64)
    gold = (x64 - x64.mean(axis=1, keepdims=True)) / np.sqrt(x64.var(axis=1, keepdims=True) + eps) * g + b
    # Tolerance: bn_stats/bn_aggr work in fp32 (sequential sums, two-pass variance, Chan's combination), so
    # mean and variance carry a relative error of ~1e-6 of the row's magnitude (|x| ~ 4 + 3 sigma); rsqrt adds 1
    # ulp. The normalised values are O(1), so an absolute 2e-5 bounds the result with margin.
    err = float(np.max(np.abs(y - gold)))
    check(y.shape == (M, D) and err < 2e-5, f"({M}, {D}): max abs error {err}")
finish()
