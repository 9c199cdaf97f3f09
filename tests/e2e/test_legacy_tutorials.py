"""End to end: tutorial-shaped legacy kernels we wrote (examples/legacy_avgpool.py, legacy_mamba.py,
legacy_attention.py) through the CLI against numpy, and the legacy gaps they flushed out: nl.par_dim block
tensors, launch grids spelled in the file (kernel[2, 2](...)), non-box masks on reductions / softmax, legacy
affine_select, masked and batched indirect loads, nl.trunc/floor/ceil beyond 2^31, with their located errors."""
import os

import numpy as np

from common import EXAMPLES, LEGACY_HEADER, check, check_equal, cli_outputs, finish, run, save, tmpdir, write_kernel

d = tmpdir()
rng = np.random.default_rng(7)
f32 = np.float32


def kernel(name, body, header=True):
    return write_kernel(d, name, body, LEGACY_HEADER if header else "")


def outputs(path, inputs, *extra, n=1, checked=True):
    return cli_outputs(d, path, inputs, *extra, n=n, checked=checked)


def err(body, *extra, inputs=None):
    k = kernel("err", "@nki.jit\ndef k(x):\n" + body)
    rc, so, se = run(k, "--inputs", save(d, "ex.npy", np.zeros((128, 64), f32) if inputs is None else inputs),
                     "-q", *extra)
    return rc, se


# ---- average pool 2-D: 200 channels (a partial second tile), 16 x 24, pool 2 and (--arg) pool 4
x = rng.standard_normal((200, 16, 24)).astype(f32)
for kk, extra in ((2, ()), (4, ("--arg", "pool_size=4"))):
    (o,) = outputs(os.path.join(EXAMPLES, "legacy_avgpool.py"), [x], *extra)
    if o is not None:
        g = x.astype(np.float64).reshape(200, 16 // kk, kk, 24 // kk, kk).mean(axis=(2, 4))
        check(o.shape == g.shape and np.allclose(o, g, rtol=1e-6, atol=1e-6),
              f"legacy_avgpool k={kk}: max error {np.abs(o - g).max() if o.shape == g.shape else o.shape}")

# ---- Mamba-like selective scan: batch 2, 256 channels (2 par_dim blocks), seq 128, state 4
bt, ch, L, S = 2, 256, 128, 4
delta = rng.uniform(0.01, 0.2, (bt, ch, L)).astype(f32)
u = rng.standard_normal((bt, ch, L)).astype(f32)
A = -rng.uniform(0.5, 2.0, (ch, S)).astype(f32)
B = rng.standard_normal((bt, S, L)).astype(f32)
C = rng.standard_normal((bt, S, L)).astype(f32)
(o,) = outputs(os.path.join(EXAMPLES, "legacy_mamba.py"), [delta, u, A, B, C])
if o is not None:
    dl, uu, AA, BB, CC = (t.astype(np.float64) for t in (delta, u, A, B, C))
    g = np.zeros((bt, ch, L))
    for b in range(bt):
        for s in range(S):
            decay = np.exp(dl[b] * AA[:, s:s + 1])
            drive = dl[b] * uu[b] * BB[b, s][None, :]
            h = np.zeros(ch)
            for l in range(L):
                h = decay[:, l] * h + drive[:, l]
                g[b, :, l] += CC[b, s, l] * h
    check(np.allclose(o, g, rtol=1e-4, atol=1e-4), f"legacy_mamba: max error {np.abs(o - g).max()}")

# ---- single-head attention, plain and causal: S = 384 (3 key blocks), d = 64
S_, dh = 384, 64
q = rng.standard_normal((S_, dh)).astype(f32)
kk_ = rng.standard_normal((S_, dh)).astype(f32)
v = rng.standard_normal((S_, dh)).astype(f32)
for causal in (False, True):
    (o,) = outputs(os.path.join(EXAMPLES, "legacy_attention.py"), [q, kk_, v],
                   *(("--arg", "causal=True") if causal else ()))
    if o is not None:
        s = q.astype(np.float64) @ kk_.T.astype(np.float64) / np.sqrt(dh)
        if causal:
            s = np.where(np.tril(np.ones((S_, S_), bool)), s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        g = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
        check(np.allclose(o, g, rtol=1e-4, atol=1e-4), f"legacy_attention causal={causal}: max error {np.abs(o - g).max()}")

# ---- nl.par_dim block tensors: (4, par_dim(128), 64) and (2, 2, par_dim(128), 64) in SBUF; t[i], t[a][b],
# t[a, b, i_p, i_f], t[a, b, :, :], `+=` on blocks of nl.zeros, and a par_dim shape in HBM (just a dimension)
k = kernel("blocks", """@nki.jit
def k(x):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    t = nl.ndarray((4, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    assert t.shape == (4, 128, 64)
    for i in nl.static_range(4):
        t[i] = nl.load(x[i * 128 + i_p, i_f])
    z = nl.zeros((2, 2, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    for a in nl.static_range(2):
        for b in nl.static_range(2):
            z[a][b] += t[2 * a + b] * float(a + 1)
            z[a, b, i_p, i_f] += t[3 - (2 * a + b), i_p, i_f]
    o = nl.ndarray((4, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for a in nl.static_range(2):
        for b in nl.static_range(2):
            nl.store(o[2 * a + b], value=z[a, b, :, :])
    return o
""")
bx = rng.standard_normal((512, 64)).astype(f32)
(o,) = outputs(k, [bx])
if o is not None:
    x4 = bx.reshape(4, 128, 64)
    g = np.stack([x4[i] * f32(i // 2 + 1) + x4[3 - i] for i in range(4)])
    check(o.shape == (4, 128, 64) and np.array_equal(o, g), "par_dim block tensors: t[i], t[a][b], t[a, b, i_p, i_f]")

# PSUM blocks: acc[n] += nisa.nc_matmul(...) accumulates into block n (one 2 KiB bank each)
k = kernel("psum_blocks", """@nki.jit
def k(a, b):
    i_k = nl.arange(128)[:, None]
    i_m = nl.arange(128)[None, :]
    i_n = nl.arange(512)[None, :]
    acc = nl.zeros((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    for n in nl.affine_range(2):
        for kk in nl.affine_range(2):
            at = nl.load(a[kk * 128 + i_k, i_m])
            bt = nl.load(b[kk * 128 + i_k, n * 512 + i_n])
            acc[n] += nisa.nc_matmul(at, bt)
    o = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    for n in nl.affine_range(2):
        nl.store(o[i_k, n * 512 + i_n], value=nl.copy(acc[n]))
    return o
""")
ma = rng.standard_normal((256, 128)).astype(f32)
mb = rng.standard_normal((256, 1024)).astype(f32)
(o,) = outputs(k, [ma, mb])
if o is not None:
    g = ma.T.astype(np.float64) @ mb
    check(np.allclose(o, g, rtol=1e-5, atol=1e-4), f"PSUM par_dim blocks, acc[n] += nc_matmul: {np.abs(o - g).max()}")

BLK = "    t = nl.ndarray((4, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)\n"
for body, want in [
    ("    u = nl.exp(t)\n", "err.py:9:9: error: exp: x 't' has block dimensions before nl.par_dim; index the blocks "
                          "first (e.g. t[i])"),
    ("    u = t + 1\n", "err.py:9:9: error: +: x 't' has block dimensions before nl.par_dim; index the blocks first "
                      "(e.g. t[i])"),
    ("    nisa.dma_copy(dst=t, src=x)\n", "err.py:9:5: error: dma_copy: dst 't' has block dimensions before "
                                        "nl.par_dim; index the blocks first (e.g. t[i])"),
    ("    nl.store(x, value=t)\n", "err.py:9:5: error: store: value 't' has block dimensions before nl.par_dim; "
                                 "index the blocks first (e.g. t[i])"),
    ("    u = t.reshape((512, 64))\n", "err.py:9:9: error: reshape(): tensor 't' has block dimensions before "
                                     "nl.par_dim; index the blocks first (e.g. t[i])"),
    ("    u = t[nl.arange(4)[:, None]]\n", "err.py:9:9: error: the block dimensions before nl.par_dim of tensor 't' "
     "must be indexed with integers (e.g. t[i] or t[i, i_p, i_f]), got 'IndexTile'; nki-sim does not support index "
     "tiles or slices on them"),
    ("    u = t[4]\n", "err.py:9:9: error: index 4 is out of bounds for block dimension 0 of size 4 of tensor 't'"),
    ("    u = t[:, 0:64]\n", "err.py:9:9: error: the block dimensions before nl.par_dim of tensor 't' must be indexed "
     "with integers first (e.g. t[i] or t[i, i_p, i_f]); nki-sim does not support slicing the tile dims of several "
     "blocks at once"),
]:
    rc, se = err(BLK + body + "    return None\n")
    check(rc == 1 and want in se, f"block tensor error {body.strip()!r}: {se!r}")
rc, se = err("    t = nl.ndarray((4, nl.par_dim(128)), dtype=nl.float32, buffer=nl.sbuf)\n    return None\n")
check(rc == 1 and "err.py:8:9: error: ndarray: a shape with block dimensions before nl.par_dim needs a free dimension "
      "after it, got (4, par_dim(128))" in se, f"par_dim without a free dim: {se!r}")
rc, se = err("    t = nl.ndarray((nl.par_dim(4), nl.par_dim(128), 2), dtype=nl.float32, buffer=nl.sbuf)\n"
             "    return None\n")
check(rc == 1 and "err.py:8:9: error: ndarray: a shape can have only one nl.par_dim" in se, f"two par_dims: {se!r}")

# ---- launch grids spelled in the file: an SDK-shaped test file (kernel, numpy golden, unittest class, __main__)
# runs its kernel over the grid of `add_kernel[...]` in the test method, as with --grid
SDK = """import unittest

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki import baremetal, simulate_kernel


@nki.jit(mode="simulation")
def add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.program_id(1) * 512 + nl.arange(512)[None, :]
    nl.store(c_output[ix, iy], value=nl.load(a_input[ix, iy]) + nl.load(b_input[ix, iy]))
    return c_output


def numpy_add(a, b):
    return a + b


class TestAdd(unittest.TestCase):
    def test_add(self):
        a = np.random.random_sample([256, 1024]).astype(np.float32)
        b = np.random.random_sample([256, 1024]).astype(np.float32)
        c = GRID(a, b)
        self.assertTrue(np.allclose(c, numpy_add(a, b)))


if __name__ == "__main__":
    unittest.main()
"""
ga = rng.standard_normal((256, 1024)).astype(f32)
gb = rng.standard_normal((256, 1024)).astype(f32)
for spelling in ("add_kernel[2, 2]", "add_kernel[nl.spmd_dim(nl.nc(2), 1), nl.nc(2) * 1]",
                 "simulate_kernel(add_kernel[2, 2], a, b) and add_kernel[2, 2]"):
    k = kernel("sdk_add", SDK.replace("GRID", spelling), header=False)
    (o,) = outputs(k, [ga, gb])
    check(o is not None and np.array_equal(o, ga + gb), f"grid spelled in the file as {spelling}")
k = kernel("sdk_add", SDK.replace("GRID", "add_kernel[len(a), 2]"), header=False)
rc, so, se = run(k, "--inputs", save(d, "ga.npy", ga), save(d, "gb.npy", gb), "-q")
check(rc == 1 and "sdk_add.py:27:24: error: cannot read the launch grid of add_kernel[...]: nki-sim reads grids made "
      "of integer literals, nl.spmd_dim and nl.nc; pass it with --grid N[,M...] instead" in se, f"grid len(): {se!r}")
(o,) = outputs(k, [ga, gb], "--grid", "2,2")
check(o is not None and np.array_equal(o, ga + gb), "--grid overrides the grid spelled in the file")
k = kernel("sdk_add", SDK.replace("c = GRID(a, b)", "c = add_kernel[2, 2](a, b)\n        d = add_kernel[4](a, b)"),
           header=False)
rc, so, se = run(k, "--inputs", save(d, "ga.npy", ga), save(d, "gb.npy", gb), "-q")
check(rc == 1 and "sdk_add.py:28:24: error: the file launches add_kernel with two different grids ((2, 2) at line 27 "
      "and (4,) here); choose one with --grid" in se, f"two grids: {se!r}")
# A legacy kernel[0] runs one instance, program_id 0 (nki-samples' contributed pipelined_attention launches
# flash_fwd[0] and reads nl.program_id(0) as its batch).
k = kernel("sdk_add", SDK.replace("GRID", "add_kernel[0, 0]"), header=False)
ha, hb = ga[:128, :512].copy(), gb[:128, :512].copy()
(o,) = outputs(k, [ha, hb])
check(o is not None and np.array_equal(o, ha + hb), "a legacy kernel[0, 0] runs one instance")
cur = SDK.replace("import neuronxcc.nki as nki", "import nki").replace("neuronxcc.nki.language", "nki.language")
cur = cur.replace("from neuronxcc.nki import baremetal, simulate_kernel\n", "")
k = kernel("sdk_add", cur.replace("GRID", "add_kernel[2]"), header=False)
rc, so, se = run(k, "--inputs", save(d, "ga.npy", ga), save(d, "gb.npy", gb), "-q")
# kernel[2] of an nki.jit kernel runs as --lnc 2 (tests/e2e/test_lnc_launch.py): program_id(1) has no axis there
check(rc == 1 and "sdk_add.py:13:10: error: program_id(): axis 1 is out of range for a launch grid of 1 dimension"
      in se, f"nki.jit kernel[2]: {se!r}")
k = kernel("sdk_add", cur.replace("GRID", "add_kernel[4]"), header=False)
rc, so, se = run(k, "--inputs", save(d, "ga.npy", ga), save(d, "gb.npy", gb), "-q")
check(rc == 1 and "sdk_add.py:26:24: error: add_kernel[...]: an nki.jit kernel is launched as kernel[1] or kernel[2] "
      "(the logical NeuronCore size)" in se, f"nki.jit kernel[4]: {se!r}")
rc, se = err("    n = nl.spmd_dim(2, 0)\n    return None\n")
check(rc == 1 and "err.py:8:9: error: spmd_dim(): the sizes must be positive, got 0" in se, f"spmd_dim(2, 0): {se!r}")
rc, se = err("    assert nl.spmd_dim(nl.nc(2), 3) == 7, nl.spmd_dim(nl.nc(2), 3) + 100 * (nl.nc(2) * 2)\n"
             "    return None\n")
check(rc == 1 and "err.py:8:5: error: assertion failed: 406" in se, f"nl.spmd_dim(nl.nc(2), 3) is 6 and nl.nc(2) * 2 is 4: {se!r}")

# ---- masks that are not boxes on reductions and softmax: the masked-out elements do not take part (they become
# the reduction's identity inside the mask's bounding box); results are stored under a box mask of the rows
k = kernel("nonbox_reduce", """@nki.jit
def k(x):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    t = nl.load(x)
    tri = i_f <= i_p
    band = (i_p - i_f >= 2) | (i_f - i_p >= 40)
    outs = []
    for r in [nl.sum(t, axis=1, keepdims=True, mask=tri), nl.max(t, axis=1, keepdims=True, mask=tri),
              nl.min(t, axis=[1], keepdims=True, mask=band), nl.mean(t, axis=1, keepdims=True, mask=band),
              nl.prod(t, axis=1, keepdims=True, mask=(i_f <= i_p) & (i_f >= i_p - 3))]:
        o = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=r)
        outs.append(o)
    sm = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(sm, value=nl.zeros((128, 64), dtype=nl.float32))
    nl.store(sm[i_p, i_f], value=nl.softmax(t, axis=1, mask=tri), mask=tri)
    sel = nisa.affine_select(pred=(i_p - 2 * i_f + 5 >= 0), on_true_tile=t, on_false_value=-7.0)
    so = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(so, value=sel)
    t3 = nl.load(x.reshape((128, 4, 16)))
    m3 = nl.max(t3, axis=1, keepdims=True)
    o3 = nl.ndarray((128, 1, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o3, value=m3)
    return tuple(outs) + (sm, so, o3)
""")
nx = rng.uniform(0.5, 1.5, (128, 64)).astype(f32) * rng.choice([-1, 1], (128, 64)).astype(f32)
# Rows a non-box mask leaves empty are never computed, so those outputs are partly never written: --check says so.
res = outputs(k, [nx], n=8, checked=False)
if res[0] is not None:
    P, F = np.meshgrid(np.arange(128), np.arange(64), indexing="ij")
    x64 = nx.astype(np.float64)
    tri, band = F <= P, (P - F >= 2) | (F - P >= 40)
    diag4 = (F <= P) & (F >= P - 3)
    rows_band = band.any(axis=1)
    goldens = [
        ("sum, i_f <= i_p", np.where(tri, x64, 0).sum(1), np.ones(128, bool), 1e-5),
        ("max, i_f <= i_p", np.where(tri, x64, -np.inf).max(1), np.ones(128, bool), 0),
        ("min, '|' band", np.where(band, x64, np.inf).min(1), rows_band, 0),
        ("mean, '|' band", np.where(band, x64, 0).sum(1) / np.maximum(band.sum(1), 1), rows_band, 1e-5),
        ("prod, 4 diagonals", np.where(diag4, x64, 1).prod(1), diag4.any(axis=1), 1e-5),
    ]
    for (name, g, rows, tol), got in zip(goldens, res[:5]):
        got = got[:, 0]
        check(np.allclose(got[rows], g[rows], rtol=tol, atol=tol),
              f"non-box masked {name}: max error {np.abs(got[rows] - g[rows]).max()}")
    e = np.where(tri, np.exp(x64 - np.where(tri, x64, -np.inf).max(1, keepdims=True)), 0)
    g = e / e.sum(1, keepdims=True)
    check(np.allclose(res[5], g, rtol=1e-5, atol=1e-6), f"softmax with mask i_f <= i_p: {np.abs(res[5] - g).max()}")
    check(np.array_equal(res[6], np.where(P - 2 * F + 5 >= 0, nx, f32(-7))), "legacy affine_select(i_p - 2*i_f + 5 >= 0)")
    check(np.array_equal(res[7], nx.reshape(128, 4, 16).max(axis=1, keepdims=True)),
          "nl.max over a middle axis with keepdims")
k = kernel("legacy_reduce_nonbox", """@nki.jit
def k(x):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    r = nisa.tensor_reduce(nl.add, nl.load(x), axis=1, mask=(i_f > i_p) | (i_f == 0), keepdims=True)
    o = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o, value=r)
    return o
""")
(o,) = outputs(k, [nx])
if o is not None:
    P, F = np.meshgrid(np.arange(128), np.arange(64), indexing="ij")
    g = np.where((F > P) | (F == 0), nx.astype(np.float64), 0).sum(1)
    check(np.allclose(o[:, 0], g, rtol=1e-5, atol=1e-5), f"legacy tensor_reduce, non-box mask: {np.abs(o[:, 0] - g).max()}")
rc, se = err("    i_p = nl.arange(128)[:, None]\n    i_f = nl.arange(64)[None, :]\n"
             "    t = nisa.tensor_reduce(nl.subtract, nl.load(x), axis=1, mask=(i_p >= i_f))\n    return None\n")
check(rc == 1 and "err.py:10:9: error: tensor_reduce: a mask that does not select a box is supported with nl.add, "
      "nl.maximum, nl.minimum and nl.multiply only, got nl.subtract" in se, f"legacy tensor_reduce subtract: {se!r}")
rc, se = err("    i_p = nl.arange(128)[:, None]\n    i_f = nl.arange(64)[None, :]\n"
             "    t = nl.var(nl.load(x), axis=1, mask=(i_p >= i_f))\n    return None\n")
check(rc == 1 and "err.py:10:9: error: var: a mask that does not select a box (it relates two index tiles, or uses "
      "'|' or '!=') is not supported yet by nki-sim" in se, f"var non-box mask: {se!r}")
rc, se = err("    t = nisa.affine_select(pred=nl.load(x), on_true_tile=nl.load(x), on_false_value=0.0)\n    return None\n")
check(rc == 1 and "err.py:8:9: error: affine_select: pred must be an affine predicate over index tiles such as "
      "(i_p >= i_f), got 'NkiTensor'" in se, f"affine_select pred: {se!r}")

# ---- indirect loads: with mask= (rows and columns of the gathered tile), after integer subscripts
# (x3[b, idx[i_p, 0], i_f]), and a masked indirect store (scatter of the first 64 partitions only)
k = kernel("indirect_mask", """@nki.jit
def k(x, x3, idx, perm):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    it = nl.load(idx)
    m = (i_p >= 10) & (i_p < 100) & (i_f < 40)
    o1 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o1, value=nl.zeros((128, 64), dtype=nl.float32))
    nl.store(o1[i_p, i_f], value=nl.load(x[it[i_p, 0], i_f], mask=m), mask=m)
    o2 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o2, value=nl.load(x3[1, it[i_p, 0], i_f]))
    o3 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o3, value=nl.zeros((128, 64), dtype=nl.float32))
    tp = nl.load(perm)
    nl.store(o3[tp[i_p, 0], i_f], value=nl.load(x[i_p, i_f]), mask=(i_p < 64))
    return o1, o2, o3
""")
ix = rng.standard_normal((256, 64)).astype(f32)
ix3 = rng.standard_normal((2, 256, 64)).astype(f32)
iidx = rng.integers(0, 256, size=(128, 1)).astype(np.int32)
iperm = rng.permutation(128).astype(np.int32).reshape(128, 1)
o1, o2, o3 = outputs(k, [ix, ix3, iidx, iperm], n=3)
if o1 is not None:
    g1 = np.zeros((128, 64), f32)
    g1[10:100, :40] = ix[iidx[10:100, 0], :40]
    check(np.array_equal(o1, g1), "masked indirect load x[idx[i_p, 0], i_f] (rows 10..99, columns < 40)")
    check(np.array_equal(o2, ix3[1][iidx[:, 0]]), "indirect load after an integer subscript x3[1, idx[i_p, 0], i_f]")
    g3 = np.zeros((128, 64), f32)
    g3[iperm[:64, 0]] = ix[:64]
    check(np.array_equal(o3, g3), "masked indirect store o[perm[i_p, 0], i_f] for i_p < 64")
rc, se = err("    i_p = nl.arange(128)[:, None]\n    it = nl.load(x, dtype=nl.int32)\n"
             "    t = nl.load(x[i_p, it[i_p, 0]])\n    return None\n")
check(rc == 1 and "err.py:10:17: error: indirect indexing with a tile is supported only on the first subscript that "
      "is not an integer (nl.load(t[idx[i_p, 0], i_f]) or t[b, idx[i_p, 0], i_f]) by nki-sim" in se,
      f"indirect on a later subscript: {se!r}")

# ---- nl.trunc / floor / ceil beyond 2^23 and 2^31 (fp32 values there are integers), infinities kept
k = kernel("rounding", """@nki.jit
def k(x):
    t = nl.load(x)
    outs = []
    for f in [nl.trunc, nl.floor, nl.ceil]:
        o = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=f(t))
        outs.append(o)
    return tuple(outs)
""")
special = np.array([3.7, -3.7, 0.5, -0.5, 2.5, -2.5, 8388607.5, -8388607.5, 8388609.0, -8388609.0, 2.0 ** 31,
                    -2.0 ** 31, 3.0e9, -3.0e9, 1.0e10, -1.0e10, 1.0e20, -1.0e20, 3.4e38, -3.4e38, np.inf, -np.inf,
                    2.0 ** 31 - 128, -(2.0 ** 31) - 256], f32)
rx = np.concatenate([special, rng.uniform(-1e12, 1e12, 64 - special.size).astype(f32)])
rx = np.tile(rx, (128, 1)) * np.where(np.arange(128)[:, None] % 2, f32(1), f32(-1))
rt, rf, rc_ = outputs(k, [rx.astype(f32)], n=3)
if rt is not None:
    for name, got, g in (("trunc", rt, np.trunc(rx)), ("floor", rf, np.floor(rx)), ("ceil", rc_, np.ceil(rx))):
        check(np.array_equal(got, g), f"nl.{name} for |x| up to 3.4e38: {np.argwhere(got != g)[:3]}")

finish()
