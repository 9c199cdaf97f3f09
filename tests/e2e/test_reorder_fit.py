"""End to end: a kernel whose automatically allocated tiles do not fit SBUF in program order, but do once
independent operations are reordered (docs/spill.md, "Reordering before spilling"): eight [128, 8192] fp32 tiles
(256 KiB per partition, SBUF is 192 KiB on trn1) are loaded first and each is read by two accumulations. They are
loaded from a copy of the input the kernel made in HBM: plain copies of the input itself are re-loaded at each use
instead (tests/e2e/test_remat.py). The back end interleaves the two accumulations so each tile is used up before the next is loaded: no spill DMA, the note
on stderr, numpy-exact outputs (timed and functional), and the reordered program in --emit asm. With a third
accumulation even the reordered working set does not fit: the kernel spills in program order as before."""
import os

import numpy as np

from common import check, check_equal, finish, load_core, run, save, tmpdir, write_kernel

d = tmpdir()
rng = np.random.default_rng(11)
f32 = np.float32

kernel = write_kernel(d, "twice", """@nki.jit
def sum_twice(a, n=8, f=8192, m=2):
    out = nl.ndarray((m, 128, f), dtype=a.dtype, buffer=nl.shared_hbm)
    b = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.hbm)
    nisa.dma_copy(dst=b, src=a)
    tiles = []
    for j in range(n):
        t = nl.ndarray((128, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=b[:, j * f:(j + 1) * f])
        tiles.append(t)
    for b in range(m):
        acc = nl.ndarray((128, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=float(b))
        for j in range(n):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=tiles[j], op=nl.add)
        nisa.dma_copy(dst=out[b], src=acc)
    return out
""")


def golden(a, n, f, m=2):
    out = np.zeros((m, 128, f), f32)
    for b in range(m):
        acc = np.full((128, f), b, f32)
        for j in range(n):
            acc = acc + a[:, j * f:(j + 1) * f]  # fp32, in the kernel's order
        out[b] = acc
    return out


a = rng.standard_normal((128, 8 * 8192)).astype(f32)
x = save(d, "a.npy", a)
out = os.path.join(d, "out")
stats = os.path.join(d, "stats.json")
rc, so, se = run(kernel, "--target", "trn1", "--inputs", x, "-o", out, "-q", "--stats", stats)
check_equal(rc, 0, f"exit code (stderr: {se})")
check_equal(se, kernel + ":13:13: note: in program order the tensors live at once do not fit in SBUF (the first that "
            "does not: 't_9'); independent operations were reordered to use each tile before the next is made, and "
            "everything fits without spilling\n", "the reorder note")
if rc == 0:
    check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), golden(a, 8, 8192)), "outputs match numpy")
    s = load_core(stats)
    check_equal(s["dma"]["transfers"], 11, "the copy, 8 loads and 2 stores: no reload or spill DMA")
    check_equal(s["dma"]["hbm_read_bytes"], 2 * 8 * 128 * 8192 * 4, "the copy, and each tile read from HBM once")

# The program: the Vector stream starts both accumulators before the second add into the first (program order:
# a memset and its eight adds, then the other memset and its adds). Both memsets come first (ready at once, the
# list scheduler takes them while the adds wait for their loads), then the adds alternate between the two.
asm = os.path.join(d, "twice.s")
rc, so, se = run(kernel, "--target", "trn1", "--inputs", x, "-o", out, "-q", "--emit", "asm", asm)
check_equal(rc, 0, f"--emit asm exit code (stderr: {se})")
if rc == 0:
    with open(asm) as fh:
        lines = [l.split() for l in fh.read().splitlines() if l.strip()]
    ops = [l[0] for l in lines if l[0] in ("tensor_tensor", "memset")]
    dsts = [l[1] for l in lines if l[0] == "tensor_tensor"]
    check_equal(ops[:4], ["memset", "memset", "tensor_tensor", "tensor_tensor"], "both accumulators start first")
    check(len(dsts) == 16 and dsts[0] != dsts[1] and dsts[0] == dsts[2], "the accumulations interleave")

# Three accumulations of four [128, 16384] tiles: even the reordered working set (three accumulators and a tile,
# 256 KiB) does not fit; the kernel spills in program order.
a2 = rng.standard_normal((128, 4 * 16384)).astype(f32)
rc, so, se = run(kernel, "--target", "trn1", "--inputs", save(d, "a2.npy", a2), "-o", out, "-q", "--arg", "n=4",
                 "--arg", "f=16384", "--arg", "m=3")
check_equal(rc, 0, f"big: exit code (stderr: {se})")
check("reordered" not in se and "spilled to HBM" in se, f"big: spills, no reorder note: {se!r}")
if rc == 0:
    check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), golden(a2, 4, 16384, 3)), "big: outputs match numpy")

finish()
