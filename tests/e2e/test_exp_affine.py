"""End to end: examples/exp_affine.py (dma -> activation exp -> tensor_scalar -> dma) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(EXAMPLES, "exp_affine.py")
d = tmpdir()
rng = np.random.default_rng(2)
x = rng.uniform(-4, 4, (128, 512)).astype(np.float32)
bias = rng.uniform(-1, 1, (128, 1)).astype(np.float32)
px, pb = save(d, "x.npy", x), save(d, "bias.npy", bias)


def golden(scale, mul=2.0, add=1.0):
    e = np.exp((x * np.float32(scale) + bias).astype(np.float32)).astype(np.float32)
    return (e * np.float32(mul) + np.float32(add)).astype(np.float32)


for scale, extra in ((0.5, []), (0.25, ["--arg", "scale=0.25"])):
    out = os.path.join(d, f"out{scale}")
    rc, so, se = run(KERNEL, "--inputs", px, pb, "-o", out, "-q", *extra)
    check_equal(rc, 0, f"exit code with scale={scale} (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    g = golden(scale)
    # exp is evaluated in fp32 by the simulator (libm); allow 2 ulp against numpy's fp32 exp.
    ulp = np.abs(y.view(np.int32).astype(np.int64) - g.view(np.int32).astype(np.int64))
    check(y.shape == g.shape and int(ulp.max()) <= 2, f"scale={scale}: max ulp difference {int(ulp.max())}")

# 64 partitions also work.
x64 = x[:64].copy()
out = os.path.join(d, "out64")
rc, so, se = run(KERNEL, "--inputs", save(d, "x64.npy", x64), save(d, "b64.npy", bias[:64].copy()), "-o", out, "-q",
                 "--arg", "mul=-1.5", "--arg", "add=0.0")
check_equal(rc, 0, f"64-partition run (stderr: {se})")
y = np.load(os.path.join(out, "output_0.npy"))
g = (np.exp((x64 * np.float32(0.5) + bias[:64]).astype(np.float32)) * np.float32(-1.5)).astype(np.float32)
check(np.allclose(y, g, rtol=3e-7, atol=0), "64-partition output matches numpy")
finish()
