"""End to end: examples/rmsnorm.py (bf16 in/out, fp32 statistics, activation_reduce, scalar bias) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir, to_bf16

KERNEL = os.path.join(EXAMPLES, "rmsnorm.py")
d = tmpdir()
rng = np.random.default_rng(12)

for (M, D), eps in (((256, 512), 1e-6), ((77, 96), 1e-3)):
    x = to_bf16(rng.normal(0, 2, (M, D)).astype(np.float32))
    w = to_bf16(rng.normal(1, 0.5, (1, D)).astype(np.float32))
    px, pw = save(d, f"x{M}.npy", x), save(d, f"w{M}.npy", w)
    out = os.path.join(d, f"out{M}")
    rc, so, se = run(KERNEL, "--inputs", px + ":bfloat16", pw + ":bfloat16", "-o", out, "-q", "--arg", f"eps={eps}")
    check_equal(rc, 0, f"exit code for ({M}, {D}) (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    x64 = x.astype(np.float64)
    exact = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w.astype(np.float64)
    g = to_bf16(exact.astype(np.float32))
    # Tolerance: the simulator's fp32 statistics (sequential sum of squares, 1/sqrtf) differ from the float64
    # reference by a few fp32 ulp, so an output may round to the neighbouring bfloat16 value when the exact
    # result sits near a rounding boundary: allow 1 bf16 ulp (relative 2^-7 of the value) and require almost
    # every element to match exactly.
    ulp = np.abs(y.view(np.int32).astype(np.int64) - g.view(np.int32).astype(np.int64)) >> 16
    check(y.shape == (M, D) and int(ulp.max()) <= 1, f"({M}, {D}): max difference {int(ulp.max())} bf16 ulp")
    check(float(np.mean(ulp != 0)) < 0.01, f"({M}, {D}): {float(np.mean(ulp != 0)):.4f} of outputs differ")

# trn1 has no scalar activation bias: the kernel line is reported.
rc, so, se = run(KERNEL, "--inputs", px + ":bfloat16", pw + ":bfloat16", "-o", os.path.join(d, "t1"), "--target", "trn1")
check_equal(rc, 1, "trn1 exit code")
check("rmsnorm.py:36:9: error: activation: a scalar bias needs trn2 or later" in se, f"trn1 diagnostic: {se}")
finish()
