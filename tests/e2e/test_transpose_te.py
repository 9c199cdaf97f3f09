"""End to end: examples/transpose_te.py: Tensor Engine transposes, bit-exact on trn2/trn3 (NaN payloads,
infinities, -0.0, subnormals), an fp32 identity matmul on trn1."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(EXAMPLES, "transpose_te.py")
d = tmpdir()
rng = np.random.default_rng(3)
M, N = 256, 384

# fp32 with special bit patterns.
bits = rng.integers(0, 2 ** 32, size=(M, N), dtype=np.uint64).astype(np.uint32)
bits[0, :6] = [0x7FC00001, 0xFFA00000, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001]
x = bits.view(np.float32)
px = save(d, "x.npy", x)
for target in ("trn2", "trn3"):
    out = os.path.join(d, "out_" + target)
    rc, so, se = run(KERNEL, "--inputs", px, "-o", out, "--target", target, "-q")
    check_equal(rc, 0, f"fp32 {target} exit code (stderr: {se})")
    if rc == 0:
        y = np.load(os.path.join(out, "output_0.npy"))
        check_equal((y.dtype, y.shape), (np.dtype(np.float32), (N, M)), f"{target} dtype/shape")
        check(np.array_equal(y.view(np.uint32), bits.T), f"fp32 transpose is bit-exact on {target}")

# bf16 raw bits in, raw bits out (--raw-low-precision).
b16 = rng.integers(0, 2 ** 16, size=(M, N), dtype=np.uint64).astype(np.uint16)
b16[1, :4] = [0x7FC1, 0xFF80, 0x8000, 0x0001]
pb = save(d, "b16.npy", b16)
out = os.path.join(d, "out16")
rc, so, se = run(KERNEL, "--inputs", pb + ":bfloat16", "-o", out, "-q", "--raw-low-precision")
check_equal(rc, 0, f"bf16 exit code (stderr: {se})")
if rc == 0:
    y = np.load(os.path.join(out, "output_0.npy"))
    check_equal(y.dtype, np.dtype(np.uint16), "raw bf16 output dtype")
    check(np.array_equal(y, b16.T), "bf16 transpose is bit-exact (raw bits)")

# trn1 has no transpose mode: the identity matmul runs in fp32. Finite values pass exactly, -0.0 becomes
# +0.0, and an inf turns the rest of its output row into NaN (inf x 0).
f = rng.standard_normal((M, N), dtype=np.float32)
f[5, 7] = np.inf
f[6, 8] = -0.0
pf = save(d, "f.npy", f)
out = os.path.join(d, "out1")
rc, so, se = run(KERNEL, "--inputs", pf, "-o", out, "--target", "trn1", "-q")
check_equal(rc, 0, f"trn1 exit code (stderr: {se})")
if rc == 0:
    y = np.load(os.path.join(out, "output_0.npy"))
    check(np.isinf(y[7, 5]), "trn1: the inf itself survives")
    row = y[7, 0:128]  # output row 7 of the tile holding x[0:128, 0:128]
    check(np.all(np.isnan(np.delete(row, 5))), "trn1: inf x 0 poisons its output row")
    check(y[8, 6] == 0 and not np.signbit(y[8, 6]), "trn1: -0.0 comes out as +0.0")
    clean = np.ones_like(y, dtype=bool)
    clean[7, 0:128] = False
    check(np.array_equal(y[clean], f.T[clean]), "trn1: every other element is exact (by value)")
finish()
