"""End to end: nki.isa.dma_compute (nki-isa.md §3.5) against numpy: dst = sum of srcs in fp32 (2, 3, 5 and 16
sources; HBM and SBUF destinations, a bf16 destination rounded once), gather-add dst_sbuf += src_hbm[idx] and
scatter-add dst_hbm[idx] += src_sbuf with .ap(vector_offset=...), and the argument rules as located errors."""
import os

import numpy as np

from common import SRC, check, check_equal, finish, run, save, tmpdir, to_bf16, write_file

d = tmpdir()
RMW_KERNEL = os.path.join(SRC, "tests", "e2e", "kernels", "dma_rmw.py")
rng = np.random.default_rng(5)

SUM = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def dsum(x):
    N, P, F = x.shape
    out = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    {body}
    return out
'''
TO_HBM = "nisa.dma_compute(dst=out, srcs=[x[i] for i in range(N)], reduce_op=nl.add{extra})"
TO_SBUF = """t = nl.ndarray((P, F), dtype={dt}, buffer=nl.sbuf)
    nisa.dma_compute(dst=t, srcs=[x[i] for i in range(N)], reduce_op=nl.add)
    nisa.dma_copy(dst=out, src=t)"""


def kernel(name, src):
    return write_file(d, name, src)


def fp32_sum(x):
    acc = x[0].copy()
    for k in range(1, x.shape[0]):
        acc = (acc + x[k]).astype(np.float32)
    return acc


for n in (2, 3, 5, 16):
    x = rng.normal(size=(n, 128, 96)).astype(np.float32) * np.float32(100)
    px = save(d, f"x{n}.npy", x)
    for label, body in (("hbm", TO_HBM.replace("{extra}", ", scales=[1.0] * N")), ("sbuf fp32", TO_SBUF.replace("{dt}", "nl.float32")),
                        ("sbuf bf16", TO_SBUF.replace("{dt}", "nl.bfloat16"))):
        k = kernel(f"s{n}{label[:2]}{label[-2:]}.py", SUM.replace("{body}", body))
        out = os.path.join(d, f"o{n}{label.replace(' ', '')}")
        rc, so, se = run(k, "--inputs", px, "-o", out, "-q")
        check_equal(rc, 0, f"{n} sources to {label}: exit code ({se})")
        if rc == 0:
            y = np.load(os.path.join(out, "output_0.npy"))
            g = fp32_sum(x)
            if label == "sbuf bf16":
                g = to_bf16(g)  # one rounding of the fp32 sum, also across chained instructions
            check(np.array_equal(y, g), f"{n} sources to {label}: max difference {float(np.max(np.abs(y - g)))}")

# Gather-add and scatter-add with a vector offset (tests/e2e/kernels/dma_rmw.py).
k = RMW_KERNEL
table = rng.normal(size=(200, 64)).astype(np.float32)
rows = rng.normal(size=(100, 64)).astype(np.float32)
idx = rng.permutation(200)[:100].astype(np.uint32).reshape(100, 1)
out = os.path.join(d, "rmw")
rc, so, se = run(k, "--inputs", save(d, "table.npy", table), save(d, "rows.npy", rows), save(d, "idx.npy", idx), "-o", out, "-q")
check_equal(rc, 0, f"rmw: exit code ({se})")
if rc == 0:
    g = np.load(os.path.join(out, "output_0.npy"))
    s = np.load(os.path.join(out, "output_1.npy"))
    want_g = (rows + table[idx[:, 0]]).astype(np.float32)
    check(np.array_equal(g, want_g), "gather-add: t += table[idx]")
    want_s = table.copy()
    want_s[idx[:, 0]] = (table[idx[:, 0]] + want_g).astype(np.float32)
    check(np.array_equal(s, want_s), "scatter-add: out[idx] += t, other rows unchanged")

ERRORS = [
    ("nisa.dma_compute(dst=out, srcs=[x[i] for i in range(N)], reduce_op=nl.multiply)",
     "dma_compute: reduce_op must be nl.add (the only reduction of the DMA engines), got multiply"),
    ("nisa.dma_compute(dst=out, srcs=[x[0], x[1]], reduce_op=nl.add, scales=[1.0, 2.0])",
     "dma_compute: scales must all be 1.0, got scales[1] = 2.0"),
    ("nisa.dma_compute(dst=out, srcs=[x[0], x[1]], reduce_op=nl.add, scales=[1.0])",
     "dma_compute: scales has 1 entries but srcs has 2"),
    ("nisa.dma_compute(dst=out, srcs=[x[0]], reduce_op=nl.add)", "dma_compute: srcs must hold 2 to 16 tensors, got 1"),
    ("nisa.dma_compute(dst=out, srcs=[x[0]] * 17, reduce_op=nl.add)", "dma_compute: srcs must hold 2 to 16 tensors, got 17"),
    ("nisa.dma_compute(dst=out, srcs=[x[0], x[1][0:64]], reduce_op=nl.add)",
     "dma_compute: operand 'dst' has 128 x 96 = 12288 elements but 'srcs[1]' has 64 x 96 = 6144"),
]
x = np.zeros((3, 128, 96), np.float32)
for i, (line, msg) in enumerate(ERRORS):
    k = kernel(f"e{i}.py", SUM.replace("{body}", line))
    rc, so, se = run(k, "--inputs", save(d, "ex.npy", x), "-o", os.path.join(d, f"e{i}"))
    check_equal(rc, 1, f"error {i}: exit code")
    check(f"{k}:10:5: error: {msg}" in se, f"error {i}: expected '{msg}', got {se}")
finish()
