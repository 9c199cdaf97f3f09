"""End to end: nisa.scalar_tensor_tensor and nisa.nc_n_gather kernels against numpy (fp32 math, exact)."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, to_bf16

d = tmpdir()
KERNEL = os.path.join(d, "stt.py")
with open(KERNEL, "w") as f:
    f.write('''
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def stt(x, y, s):
    P, F = x.shape
    out1 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((P, F), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    xt = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    yt = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    st = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    nisa.dma_copy(dst=yt, src=y)
    nisa.dma_copy(dst=st, src=s)
    r1 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.scalar_tensor_tensor(dst=r1, data=xt, op0=nl.subtract, operand0=st, op1=nl.multiply, operand1=yt)
    r2 = nl.ndarray((P, F), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.scalar_tensor_tensor(r2, xt, nl.divide, 2.0, nl.subtract, yt, reverse0=True, reverse1=True)
    nisa.dma_copy(dst=out1, src=r1)
    nisa.dma_copy(dst=out2, src=r2)
    return out1, out2
''')

GATHER = os.path.join(d, "gather.py")
with open(GATHER, "w") as f:
    f.write('''
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def gather(data, idx):
    P, A, B = data.shape
    N = idx.shape[1]
    out = nl.ndarray((P, N), dtype=data.dtype, buffer=nl.shared_hbm)
    dt = nl.ndarray((P, A, B), dtype=data.dtype, buffer=nl.sbuf)
    it = nl.ndarray((P, N), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.dma_copy(dst=dt, src=data)
    nisa.dma_copy(dst=it, src=idx)
    ot = nl.ndarray((P, N), dtype=data.dtype, buffer=nl.sbuf)
    nisa.nc_n_gather(dst=ot, data=dt, indices=it)
    nisa.dma_copy(dst=out, src=ot)
    return out
''')

rng = np.random.default_rng(5)
with np.errstate(all="ignore"):
    for P, F in ((1, 64), (128, 100)):
        x = rng.normal(size=(P, F)).astype(np.float32)
        y = rng.normal(size=(P, F)).astype(np.float32)
        s = rng.normal(size=(P, 1)).astype(np.float32)
        x[0, 0], x[0, 1], y[0, 2], x[0, 3] = np.nan, np.inf, -np.inf, 0.0
        out = os.path.join(d, f"stt{P}")
        rc, so, se = run(KERNEL, "--inputs", save(d, f"x{P}.npy", x), save(d, f"y{P}.npy", y), save(d, f"s{P}.npy", s),
                         "-o", out, "-q")
        check_equal(rc, 0, f"stt exit code for P={P} (stderr: {se})")
        o1 = np.load(os.path.join(out, "output_0.npy"))
        o2 = np.load(os.path.join(out, "output_1.npy"))
        g1 = (x - s) * y                      # float32 numpy: the same fp32 operations
        g2 = to_bf16(y - np.float32(2.0) / x)
        check(np.array_equal(o1, g1, equal_nan=True), f"P={P}: (x - s) * y differs")
        check(np.array_equal(o2, g2, equal_nan=True), f"P={P}: y - 2 / x (bf16) differs")

    for P in (1, 128):
        data = rng.normal(size=(P, 3, 200)).astype(np.float32)
        idx = rng.integers(0, 600, size=(P, 700)).astype(np.uint32)
        out = os.path.join(d, f"g{P}")
        rc, so, se = run(GATHER, "--inputs", save(d, f"d{P}.npy", data), save(d, f"i{P}.npy", idx), "-o", out, "-q")
        check_equal(rc, 0, f"gather exit code for P={P} (stderr: {se})")
        g = np.take_along_axis(data.reshape(P, -1), idx.astype(np.int64), axis=1)
        check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), g), f"P={P}: gather differs")

    idx = np.zeros((4, 8), np.uint32)
    idx[2, 5] = 600
    rc, so, se = run(GATHER, "--inputs", save(d, "dbad.npy", np.zeros((4, 3, 200), np.float32)), save(d, "ibad.npy", idx),
                     "-o", os.path.join(d, "bad"))
    check_equal(rc, 1, "an out-of-range index is a located error")
    check("gather.py:17:5: error: nc_n_gather: indices[2, 5] = 600 is outside [0, 600)" in se, f"diagnostic: {se}")
finish()
