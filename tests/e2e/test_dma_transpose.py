"""End to end: nki.isa.dma_transpose (nki-isa.md §3.5) against numpy, bit-exact: 2D (1,0), 3D (2,1,0) and
4D (3,1,2,0) from HBM (float16) and from SBUF (bfloat16 via a casting load), and the shape rules as located
errors with exact messages."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, to_bf16, write_file

d = tmpdir()
rng = np.random.default_rng(11)

FROM_HBM = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def transpose_hbm(x):
    dst_shape = {dst_shape}
    out = nl.ndarray(dst_shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(dst_shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=x{axes})
    nisa.dma_copy(dst=out, src=t)
    return out
'''

FROM_SBUF = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def transpose_sbuf(x):
    dst_shape = {dst_shape}
    out = nl.ndarray(dst_shape, dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=x)
    t = nl.ndarray(dst_shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=s{axes})
    nisa.dma_copy(dst=out, src=t)
    return out
'''


def kernel(name, src):
    return write_file(d, name, src)


CASES = [((16, 128), (1, 0)), ((16, 40), (1, 0)), ((4, 8, 64), (2, 1, 0)), ((1, 16, 128), (2, 1, 0)),
         ((2, 4, 8, 32), (3, 1, 2, 0)), ((16, 3, 1, 128), (3, 1, 2, 0))]
for i, (shape, axes) in enumerate(CASES):
    dst_shape = tuple(shape[a] for a in axes)
    for explicit in (False, True):
        ax = f", axes={axes}" if explicit else ""
        # HBM source, float16 (2 bytes, bit-exact: compare raw bits).
        x = rng.normal(size=shape).astype(np.float16)
        k = kernel(f"h{i}{explicit}.py", FROM_HBM.replace("{dst_shape}", str(dst_shape)).replace("{axes}", ax))
        out = os.path.join(d, f"oh{i}{explicit}")
        rc, so, se = run(k, "--inputs", save(d, f"x{i}.npy", x), "-o", out, "-q")
        check_equal(rc, 0, f"HBM {shape} {axes}: exit code ({se})")
        if rc == 0:
            y = np.load(os.path.join(out, "output_0.npy"))
            check(y.dtype == np.float16 and np.array_equal(y.view(np.uint16), np.transpose(x, axes).view(np.uint16)),
                  f"HBM {shape} {axes}: bit-exact transpose")
    # SBUF source, bfloat16 (the load casts fp32 -> bf16; the store casts back exactly).
    if shape[0] <= 128:
        xf = rng.normal(size=shape).astype(np.float32)
        k = kernel(f"s{i}.py", FROM_SBUF.replace("{dst_shape}", str(dst_shape)).replace("{axes}", ""))
        out = os.path.join(d, f"os{i}")
        rc, so, se = run(k, "--inputs", save(d, f"xf{i}.npy", xf), "-o", out, "-q")
        check_equal(rc, 0, f"SBUF {shape} {axes}: exit code ({se})")
        if rc == 0:
            y = np.load(os.path.join(out, "output_0.npy"))
            check(np.array_equal(y, np.transpose(to_bf16(xf), axes)), f"SBUF {shape} {axes}: transpose of the bf16 values")

# Shape rules: located errors (line 11 is the dma_transpose call), exact messages. The docs give the shape and
# dtype rules for the hardware DGE transpose (dge_mode.hwdge); the default mode (unknown) takes any shape and dtype:
# tested below.
HW = ", dge_mode=nisa.dge_mode.hwdge"
ERRORS = [
    ((16, 128), (128, 16), ", axes=(0, 1)", np.float16,
     "dma_transpose: axes must be (1, 0) for a 2D src, (2, 1, 0) for 3D or (3, 1, 2, 0) for 4D; got (0, 1) for src of shape (16, 128)"),
    ((4, 8, 64), (64, 8, 4), ", axes=(2, 0, 1)", np.float16,
     "dma_transpose: axes must be (1, 0) for a 2D src, (2, 1, 0) for 3D or (3, 1, 2, 0) for 4D; got (2, 0, 1) for src of shape (4, 8, 64)"),
    ((16, 128), (16, 128), "", np.float16,
     "dma_transpose: dst has shape (16, 128) but src of shape (16, 128) transposed by (1, 0) has shape (128, 16)"),
    ((16, 64), (64, 16), HW, np.float32, "dma_transpose: the dtype must be 2 bytes (e.g. bfloat16), got float32"),
    ((32, 64), (64, 32), HW, np.float16, "dma_transpose: a 2D src needs src.shape[0] == 16, got src of shape (32, 64)"),
    ((3, 16, 64), (64, 16, 3), HW, np.float16,
     "dma_transpose: a 3D src needs src.shape[0] in (1, 2, 4, 8, 16), got src of shape (3, 16, 64)"),
    ((4, 2, 64), (64, 2, 4), HW, np.float16,
     "dma_transpose: a 3D src needs src.shape[0] * src.shape[-2] to be a multiple of 16, got src of shape (4, 2, 64)"),
    ((2, 4, 4, 32), (32, 4, 4, 2), HW, np.float16,
     "dma_transpose: a 4D src needs src.shape[0] * src.shape[-2] to be a multiple of 16, got src of shape (2, 4, 4, 32)"),
    ((16, 64), (64, 16), ", oob_mode=nisa.oob_mode.skip", np.float16,
     "dma_transpose: oob_mode.skip (oob_skip) needs an indirect access pattern (.ap() with scalar_offset or "
     "vector_offset: ind != 0)"),
]
for i, (shape, dst_shape, extra, dt, msg) in enumerate(ERRORS):
    k = kernel(f"e{i}.py", FROM_HBM.replace("{dst_shape}", str(dst_shape)).replace("{axes}", extra))
    x = np.zeros(shape, dt)
    rc, so, se = run(k, "--inputs", save(d, f"ex{i}.npy", x), "-o", os.path.join(d, f"e{i}"))
    check_equal(rc, 1, f"error {i}: exit code")
    check(f"{k}:11:5: error: {msg}" in se, f"error {i}: expected '{msg}', got {se}")

# dge_mode.unknown (the default) and none (static descriptors, as nki-library's mlp_tkg passes): shapes and dtypes the
# hwdge rules refuse transpose too (HBM source, exact).
for i, (shape, axes, dt, mode) in enumerate([((16, 64), (1, 0), np.float32, ""), ((32, 64), (1, 0), np.float16, ""),
                                             ((3, 16, 64), (2, 1, 0), np.float32, ""),
                                             ((128, 1, 1, 64), (3, 1, 2, 0), np.float32, ""),
                                             ((2, 4, 4, 100), (3, 1, 2, 0), np.int32, ""),
                                             ((16, 64), (1, 0), np.float16, ", dge_mode=nisa.dge_mode.none"),
                                             ((4, 1, 1, 96), (3, 1, 2, 0), np.float32, ", dge_mode=3")]):
    dst_shape = tuple(shape[a] for a in axes)
    k = kernel(f"u{i}.py", FROM_HBM.replace("{dst_shape}", str(dst_shape)).replace("{axes}", mode))
    x = (rng.normal(size=shape) * 100).astype(dt)
    out = os.path.join(d, f"ou{i}")
    rc, so, se = run(k, "--inputs", save(d, f"xu{i}.npy", x), "-o", out, "-q")
    check_equal(rc, 0, f"unknown mode {shape} {dt.__name__}: exit code ({se})")
    if rc == 0:
        y = np.load(os.path.join(out, "output_0.npy"))
        check(y.dtype == dt and np.array_equal(y, np.transpose(x, axes)), f"unknown mode {shape} {dt.__name__}: exact")

# dtype mismatch (SBUF bf16 src into a float16 dst) and trn1 (no DMA transpose before trn2).
MIX = FROM_SBUF.replace("t = nl.ndarray(dst_shape, dtype=nl.bfloat16", "t = nl.ndarray(dst_shape, dtype=nl.float16")
k = kernel("mix.py", MIX.replace("{dst_shape}", "(64, 16)").replace("{axes}", ""))
rc, so, se = run(k, "--inputs", save(d, "m.npy", np.zeros((16, 64), np.float32)), "-o", os.path.join(d, "mix"))
check(rc == 1 and f"{k}:13:5: error: dma_transpose: dst and src must have the same dtype, got float16 and bfloat16" in se,
      f"dtype mismatch: {se}")
k = kernel("t1.py", FROM_HBM.replace("{dst_shape}", "(64, 16)").replace("{axes}", ""))
rc, so, se = run(k, "--inputs", save(d, "t1.npy", np.zeros((16, 64), np.float16)), "-o", os.path.join(d, "t1"),
                 "--target", "trn1")
check(rc == 1 and f"{k}:11:5: error: dma_transpose: not available on trn1 (trn2 and later)" in se, f"trn1: {se}")
finish()
