"""End to end: nisa.activate2 (trn3) against numpy: 3-stage semantics, reverse flags, prelu, accumulators."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir

d = tmpdir()
KERNEL = os.path.join(d, "act2.py")
with open(KERNEL, "w") as f:
    f.write('''
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def act2(x, a):
    P, F = x.shape
    out1 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    red = nl.ndarray((P, 3), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    at = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    nisa.dma_copy(dst=at, src=a)
    r = nl.ndarray((P, 3), dtype=nl.float32, buffer=nl.sbuf)
    o1 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    # prelu(a * x - 0.5, 0.25), max-reduced
    nisa.activate2(o1, nl.prelu, xt, at, 0.5, nl.multiply, nl.subtract, relu_param=0.25,
                   reduce_op=nl.maximum, reduce_res=r[:, 0:1], reduce_cmd=nisa.reduce_cmd.reset_reduce)
    # reverse1: 0.5 - (a * x), then abs_max-reduced
    o2 = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activate2(o2, nl.copy, xt, at, 0.5, nl.multiply, nl.subtract, reverse1=True,
                   reduce_op=nl.abs_max, reduce_res=r[:, 1:2], reduce_cmd=nisa.reduce_cmd.reset_reduce)
    # add-reduce of (x + 1), chained over two calls: reset_reduce then reduce
    tmp = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activate2(tmp, nl.copy, xt, 1.0, None, nl.add, nl.bypass, reduce_op=nl.add,
                   reduce_cmd=nisa.reduce_cmd.reset_reduce)
    nisa.activate2(tmp, nl.copy, xt, 1.0, None, nl.add, nl.bypass, reduce_op=nl.add, reduce_res=r[:, 2:3],
                   reduce_cmd=nisa.reduce_cmd.reduce)
    nisa.dma_copy(dst=out1, src=o1)
    nisa.dma_copy(dst=out2, src=o2)
    nisa.dma_copy(dst=red, src=r)
    return out1, out2, red
''')

rng = np.random.default_rng(9)
f32 = np.float32
for P, F in ((1, 40), (128, 96)):
    x = rng.normal(size=(P, F)).astype(f32)
    a = rng.uniform(0.5, 2.0, size=(P, 1)).astype(f32)
    x[0, 0] = np.inf
    out = os.path.join(d, f"o{P}")
    rc, so, se = run(KERNEL, "--target", "trn3", "--inputs", save(d, f"x{P}.npy", x), save(d, f"a{P}.npy", a),
                     "-o", out, "-q")
    check_equal(rc, 0, f"exit code for P={P} (stderr: {se})")
    o1 = np.load(os.path.join(out, "output_0.npy"))
    o2 = np.load(os.path.join(out, "output_1.npy"))
    red = np.load(os.path.join(out, "output_2.npy"))
    v = a * x - f32(0.5)
    g1 = np.where(v > 0, v, f32(0.25) * v).astype(f32)
    g2 = (f32(0.5) - a * x).astype(f32)
    check(np.array_equal(o1, g1), f"P={P}: prelu stage differs")
    check(np.array_equal(o2, g2), f"P={P}: reverse1 stage differs")
    check(np.array_equal(red[:, 0], g1.max(axis=1)), f"P={P}: maximum accumulator differs")
    # abs_max: the signed value of largest magnitude (ties -> the later element), folded left to right
    am = np.zeros(P, f32)
    for p in range(P):
        acc = f32(0)
        for v2 in g2[p]:
            acc = acc if abs(acc) > abs(v2) else v2
        am[p] = acc
    check(np.array_equal(red[:, 1], am), f"P={P}: abs_max accumulator differs")
    s = np.zeros(P, f32)
    for p in range(P):
        acc = f32(0)
        for _ in range(2):
            for v3 in (x[p] + f32(1)):
                acc = f32(acc + v3)
        s[p] = acc
    check(np.array_equal(red[:, 2], s), f"P={P}: chained add accumulator differs")

rc, so, se = run(KERNEL, "--target", "trn2", "--inputs", save(d, "xb.npy", np.zeros((4, 4), f32)),
                 save(d, "ab.npy", np.ones((4, 1), f32)), "-o", os.path.join(d, "bad"))
check_equal(rc, 1, "activate2 on trn2 is a located error")
check("act2.py:20:5: error: activate2: not available on trn2 (trn3 only)" in se, f"diagnostic: {se}")
finish()
