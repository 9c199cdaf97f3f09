"""End to end: examples/causal_mask.py (affine_select on GpSimd, int32 affine values) against numpy."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir, to_bf16

KERNEL = os.path.join(EXAMPLES, "causal_mask.py")
d = tmpdir()
rng = np.random.default_rng(14)

# affine_select copies kept elements and writes the fill value: results must be bit-exact.
for (M, N), diag, extra_in, extra_args in (((256, 256), 0, "", []), ((200, 300), 5, "", ["--arg", "diagonal=5"]),
                                          ((128, 128), -3, ":bfloat16", ["--arg", "diagonal=-3", "--arg", "mask_value=-30000.0"]),
                                          ((1, 1), 0, "", [])):
    x = rng.normal(size=(M, N)).astype(np.float32)
    if extra_in:
        x = to_bf16(x)
    out = os.path.join(d, f"out{M}x{N}")
    rc, so, se = run(KERNEL, "--inputs", save(d, f"s{M}_{N}.npy", x) + extra_in, "-o", out, "-q", *extra_args)
    check_equal(rc, 0, f"exit code for ({M}, {N}) (stderr: {se})")
    y = np.load(os.path.join(out, "output_0.npy"))
    i, j = np.indices((M, N))
    fill = np.float32(-30000.0 if extra_in else -np.inf)
    g = np.where(j <= i + diag, x, fill).astype(np.float32)
    if extra_in:
        g = to_bf16(g)
    check(np.array_equal(y, g), f"({M}, {N}) diagonal={diag}: {int(np.sum(y != g))} elements differ")
finish()
