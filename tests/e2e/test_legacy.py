"""End to end: legacy neuronxcc.nki kernels (dataflow style) through the CLI against numpy: the examples/legacy_*.py
kernels (tiled matmul with `psum +=`, softmax with reductions, an SPMD-grid add, a masked fused chain), and small
kernels for index tiles, mgrid, masks, operators, `x[...] = v`, `psum +=`, --grid and the located errors."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, cli_outputs, finish, run, save, tmpdir, write_kernel

d = tmpdir()
rng = np.random.default_rng(3)
f32 = np.float32


def kernel(name, body):
    return write_kernel(d, name, body)


def outputs(path, inputs, *extra, n=1):
    return cli_outputs(d, path, inputs, *extra, n=n)


# ---- the examples
lhsT = rng.standard_normal((384, 256)).astype(f32)
rhs = rng.standard_normal((384, 1024)).astype(f32)
(c,) = outputs(os.path.join(EXAMPLES, "legacy_matmul.py"), [lhsT, rhs])
if c is not None:
    g = lhsT.T.astype(np.float64) @ rhs
    check(np.allclose(c, g, rtol=1e-5, atol=1e-4), f"legacy_matmul: max error {np.abs(c - g).max()}")

x = rng.normal(0, 3, (300, 200)).astype(f32)
(s,) = outputs(os.path.join(EXAMPLES, "legacy_softmax.py"), [x])
if s is not None:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    g = e / e.sum(axis=1, keepdims=True)
    check(np.allclose(s, g, rtol=2e-6, atol=1e-7), f"legacy_softmax: max error {np.abs(s - g).max()}")

a = rng.standard_normal((256, 1024)).astype(f32)
b = rng.standard_normal((256, 1024)).astype(f32)
(c,) = outputs(os.path.join(EXAMPLES, "legacy_spmd_add.py"), [a, b], "--grid", "2,2")
check(c is not None and np.array_equal(c, a + b), "legacy_spmd_add --grid 2,2 equals a + b exactly")
rc, so, se = run(os.path.join(EXAMPLES, "legacy_spmd_add.py"), "--grid", "2", "--inputs",
                 save(d, "ga.npy", a), save(d, "gb.npy", b), "-q")
check("num_programs(): axis 1 is out of range for a launch grid of 1 dimension" in se, f"grid rank error: {se!r}")
rc, so, se = run(os.path.join(EXAMPLES, "legacy_spmd_add.py"), "--grid", "2,x")
check_equal(rc, 2, "--grid with a bad value is a usage error")
check("--grid expects positive integers" in se, f"--grid usage message: {se!r}")

fx = rng.standard_normal((200, 300)).astype(f32)
fy = rng.standard_normal((200, 300)).astype(f32)
(c,) = outputs(os.path.join(EXAMPLES, "legacy_fused_mask.py"), [fx, fy])
if c is not None:
    g = (np.exp(-np.maximum(f32(2) * fx + fy, 0)) * f32(0.5) + fy).astype(f32)
    check(np.allclose(c, g, rtol=2e-6, atol=1e-7), f"legacy_fused_mask: max error {np.abs(c - g).max()}")

# ---- index tiles, mgrid and masks: masked stores into a zero-filled output
k = kernel("masks", """@nki.jit
def k(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    strided = nl.ndarray((64, 32), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(F)[None, :]
    nl.store(out[i_p, i_f], value=nl.zeros((128, F), dtype=x.dtype))
    t = nl.load(x[i_p, i_f])
    # rows 10..99, columns 8.. ; ~ and & of affine bounds; a loop variable in the mask
    for j in nl.static_range(2):
        m = (i_p >= 10) & ~(i_p >= 100) & (j * 32 + i_f >= 8 + j * 32)
        nl.store(out[i_p, i_f], value=nl.add(t, 1.0, mask=m), mask=m & (j == 0))
    g = nl.mgrid[0:64, 0:32]
    s = nl.load(x[g.p + 64, g.x * 2])
    nl.store(strided[g.p, g.x], value=s)
    return out, strided
""")
xm = rng.standard_normal((128, 64)).astype(f32)
o, st = outputs(k, [xm], n=2)
if o is not None:
    g = np.zeros_like(xm)
    g[10:100, 8:] = xm[10:100, 8:] + f32(1)
    check(np.array_equal(o, g), "masked add and masked store touch rows 10..99, columns 8.. only")
    check(np.array_equal(st, xm[64:128, 0:64:2]), "mgrid index tiles with affine offsets and strides")

# ---- operators, x[...] = v, +=, psum += nl.matmul(transpose_x=True)
k = kernel("ops", """@nki.jit(mode="baremetal")
def k(a, b):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    acc_out = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.load(a)
    tb = nl.load(b)
    buf = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    buf[...] = 0.0
    buf[...] += ta * tb
    buf += 1.0
    buf[:, 0:32] = tb[:, 0:32] - ta[:, 0:32]
    nl.store(out, value=buf)
    psum = nl.zeros((64, 64), nl.float32, buffer=nl.psum)
    for i in nl.affine_range(2):
        psum += nl.matmul(ta[i * 64:(i + 1) * 64, :], tb[i * 64:(i + 1) * 64, :], transpose_x=True)
    acc_out[...] = psum
    return out, acc_out
""")
oa = rng.standard_normal((128, 64)).astype(f32)
ob = rng.standard_normal((128, 64)).astype(f32)
o, acc = outputs(k, [oa, ob], n=2)
if o is not None:
    g = oa * ob + f32(1)
    g[:, :32] = ob[:, :32] - oa[:, :32]
    check(np.array_equal(o, g), "x[...] = v, x[...] += expr, tile += scalar, sliced assignment")
    ga = oa.T.astype(np.float64) @ ob
    check(np.allclose(acc, ga, rtol=1e-5, atol=1e-4), f"psum += nl.matmul accumulates: {np.abs(acc - ga).max()}")

# ---- masks that are not boxes: triangular / affine relations between index tiles, '|', '!=', '~' of a
# conjunction. Stores write exactly the selected elements (split into boxes); ops writing fresh tiles compute
# the bounding box. Each output is zeroed first, so the golden shows exactly what the masked store wrote.
k = kernel("nonbox", """@nki.jit
def k(x):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    z = nl.zeros((128, 64), dtype=nl.float32)
    outs = []
    for m in range(7):
        o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=z)
        outs.append(o)
    t = nl.load(x[i_p, i_f], mask=(i_p >= i_f))
    nl.store(outs[0][i_p, i_f], value=t, mask=(i_p >= i_f))
    e = nl.exp(nl.load(x), mask=(i_f > i_p))
    nl.store(outs[1][i_p, i_f], value=e, mask=(i_f > i_p))
    nl.store(outs[2][i_p, i_f], value=nl.load(x), mask=(i_p != i_f))
    nl.store(outs[3][i_p, i_f], value=nl.load(x), mask=(i_p < 16) | (i_f >= 48))
    nl.store(outs[4][i_p, i_f], value=nl.load(x), mask=~((i_p < 64) & (i_f < 32)))
    nl.store(outs[5][i_p, i_f], value=nl.add(nl.load(x), 1.0, mask=(2 * i_p - i_f >= 10) & (i_p < 100)),
             mask=(2 * i_p - i_f >= 10) & (i_p < 100))
    nl.store(outs[6][i_p, i_f], value=7.0, mask=(i_p - i_f == 3) | (i_p + i_f == 70))
    return tuple(outs)
""")
nx = rng.standard_normal((128, 64)).astype(f32)
res = outputs(k, [nx], n=7)
if res[0] is not None:
    P, F = np.meshgrid(np.arange(128), np.arange(64), indexing="ij")
    goldens = [
        ("i_p >= i_f (load + store)", np.where(P >= F, nx, 0)),
        ("i_f > i_p (exp)", np.where(F > P, np.exp(nx), 0)),
        ("i_p != i_f", np.where(P != F, nx, 0)),
        ("(i_p < 16) | (i_f >= 48)", np.where((P < 16) | (F >= 48), nx, 0)),
        ("~((i_p < 64) & (i_f < 32))", np.where(~((P < 64) & (F < 32)), nx, 0)),
        ("2*i_p - i_f >= 10, i_p < 100", np.where((2 * P - F >= 10) & (P < 100), nx + f32(1), 0)),
        ("diagonals, scalar value", np.where((P - F == 3) | (P + F == 70), f32(7), 0)),
    ]
    for (name, g), got in zip(goldens, res):
        tol = 2e-6 if "exp" in name else 0
        check(np.allclose(got, g, rtol=tol, atol=tol), f"non-box mask {name}: max abs error {np.abs(got - g).max()}")

# ---- indirect rows: nl.load(t[idx[i_p, 0], i_f]) gathers row idx[p] of t into partition p (a dma_copy with a
# vector_offset access pattern); nl.store(t[idx[i_p, 0], i_f], ...) scatters
k = kernel("indirect", """@nki.jit
def k(x, idx, perm):
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    i_h = nl.arange(16)[None, :]
    it = nl.load(idx)
    g = nl.load(x[it[i_p, 0], i_f])
    o1 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o1, value=g)
    h = nl.load(x[it[i_p, 0], 2 * i_h + 8])
    o2 = nl.ndarray((128, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o2, value=h)
    o3 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    tp = nl.load(perm)
    nl.store(o3[tp[i_p, 0], i_f], value=g)
    return o1, o2, o3
""")
gx = rng.standard_normal((256, 64)).astype(f32)
gidx = rng.integers(0, 256, size=(128, 1)).astype(np.int32)
gperm = rng.permutation(128).astype(np.int32).reshape(128, 1)
o1, o2, o3 = outputs(k, [gx, gidx, gperm], n=3)
if o1 is not None:
    check(np.array_equal(o1, gx[gidx[:, 0]]), "indirect load x[idx[i_p, 0], i_f] == x[idx]")
    check(np.array_equal(o2, gx[gidx[:, 0]][:, 8:40:2]), "indirect load x[idx[i_p, 0], 2*i_h + 8]")
    g3 = np.zeros((128, 64), f32)
    g3[gperm[:, 0]] = gx[gidx[:, 0]]
    check(np.array_equal(o3, g3), "indirect store o[perm[i_p, 0], i_f] = g scatters rows")

# ---- located errors (masks that are not boxes on reductions, masked indirect loads and par_dim block dims now
# work: tests/e2e/test_legacy_tutorials.py)
def err(body):
    k = kernel("err", "@nki.jit\ndef k(x):\n" + body)
    rc, so, se = run(k, "--inputs", save(d, "ex.npy", np.zeros((128, 64), f32)), "-q")
    return rc, se


rc, se = err("    t = nl.load(x)\n    u = nl.add(t, nl.load(x[0:64]))\n    return None\n")
check(rc == 1 and "err.py:9:9: error: add: operands have shapes (128, 64) and (64, 64) (the partition dimensions "
      "differ; use nl.broadcast_to)" in se, f"shape error: {se!r}")
rc, se = err("    y = x * 2\n    return None\n")
check(rc == 1 and "tensor operator '*' is not supported on hbm tensor 'x'; load it into SBUF first (nl.load)" in se,
      f"HBM operand error: {se!r}")
rc, se = err("    t = nl.load(x)\n    u = nl.matmul(t, t, mask=(nl.arange(128)[:, None] < 64))\n    return None\n")
check(rc == 1 and "err.py:9:9: error: matmul: mask= is not supported yet by nki-sim" in se, f"matmul mask: {se!r}")
rc, se = err("    t = nl.load(x)\n    u = nl.transpose(t, mask=(nl.arange(128)[:, None] < 64))\n    return None\n")
check(rc == 1 and "err.py:9:9: error: transpose: mask= is not supported yet by nki-sim" in se,
      f"transpose mask: {se!r}")
rc, se = err("    t = nl.load(x)\n    u = nl.rms_norm(t, t, axis=1, n=64, mask=(nl.arange(128)[:, None] < 64))\n"
             "    return None\n")
check(rc == 1 and "err.py:9:9: error: rms_norm: mask= is not supported yet by nki-sim" in se,
      f"rms_norm mask: {se!r}")
rc, se = err("    t = nl.load(x)\n    u = nisa.nc_matmul(t, t, mask=(nl.arange(128)[:, None] < 64))\n    return None\n")
check(rc == 1 and "err.py:9:9: error: nc_matmul: a mask= over index tiles is not supported yet by nki-sim" in se,
      f"legacy nc_matmul mask: {se!r}")
rc, se = err("    t = nl.load(x)\n    u = nisa.nc_transpose(t, mask=(nl.arange(128)[:, None] < 64))\n    return None\n")
check(rc == 1 and "err.py:9:9: error: nc_transpose: a mask= over index tiles is not supported yet by nki-sim" in se,
      f"legacy nc_transpose mask: {se!r}")
rc, se = err("    i_p = nl.arange(128)[:, None]\n    i_f = nl.arange(64)[None, :]\n    ix = nl.load(x)\n"
             "    t = nl.load(x[ix[i_p, 0], i_f])\n    return None\n")
check(rc == 1 and "err.py:11:17: error: the row index tile of an indirect subscript must have an integer dtype, "
      "got float32" in se, f"indirect float index: {se!r}")
# ---- nl.par_dim: the partition dimension marker of legacy shapes
pk = kernel("par_dim", """@nki.jit
def k(x):
    t = nl.ndarray((nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    t[...] = nl.load(x)
    z = nl.zeros((nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o, value=nl.add(t, z) * 3.0)
    return o
""")
px = rng.standard_normal((128, 64)).astype(f32)
(po,) = outputs(pk, [px])
check(po is not None and np.array_equal(po, (px + f32(0)) * f32(3)), "nl.par_dim(128) as the first dimension")
rc, se = err("    t = nl.par_dim(0)\n    return None\n")
check(rc == 1 and "err.py:8:9: error: par_dim(): the size must be positive, got 0" in se, f"par_dim(0): {se!r}")
finish()
