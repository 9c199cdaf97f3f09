"""End to end: automatically allocated tensors that do not fit on chip are spilled to private HBM (docs/spill.md):
a PSUM block tensor of 16 matmul blocks all live at once (accumulated over two k tiles), and two SBUF tiles larger
than SBUF, each against numpy, timed and functional (run() re-runs --functional and compares), with the note on
stderr and the reload / spill DMAs in the trace; a kernel that places a tensor itself keeps the capacity error."""
import os

import numpy as np

from common import check, check_equal, finish, load_json, run, save, tmpdir, write_kernel

d = tmpdir()
rng = np.random.default_rng(5)
f32 = np.float32

# ---- PSUM: ps needs 16 x 2 KiB per partition, PSUM has 16 KiB (trn1)
psum = write_kernel(d, "psum_blocks", """@nki.jit
def k(a, b):
    out = nl.ndarray((128, 16 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.zeros((16, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    for kk in nl.affine_range(2):
        at = nl.load(a[kk * 128:(kk + 1) * 128, :])
        for i in nl.affine_range(16):
            bt = nl.load(b[kk * 128:(kk + 1) * 128, i * 512:(i + 1) * 512])
            ps[i] += nisa.nc_matmul(at, bt)
    for i in nl.affine_range(16):
        s = nl.multiply(ps[i], 2.0)
        nl.store(out[:, i * 512:(i + 1) * 512], value=s)
    return out
""")
a = rng.standard_normal((256, 128)).astype(f32)
b = rng.standard_normal((256, 16 * 512)).astype(f32)
trace = os.path.join(d, "psum_trace.json")
out = os.path.join(d, "out_psum")
rc, so, se = run(psum, "--target", "trn1", "--inputs", save(d, "a.npy", a), save(d, "b.npy", b), "-o", out, "--trace", trace)
check_equal(rc, 0, f"psum_blocks exit code (stderr: {se})")
check("psum_blocks.py:9:10: note: tensor 'ps' (32768 bytes per partition) does not fit in PSUM; spilled to HBM with "
      "32 reload and 33 spill DMAs" in se, f"psum_blocks spill note: {se!r}")
if rc == 0:
    o = np.load(os.path.join(out, "output_0.npy"))
    g = 2 * (a.T.astype(np.float64) @ b)
    check(np.allclose(o, g, rtol=1e-5, atol=1e-4), f"psum_blocks: max error {np.abs(o - g).max()}")
    check("us" in so and "DMA" in so, f"psum_blocks timed summary: {so!r}")
    # The spill / reload DMAs are real transfers: the kernel's own are 32 loads of b, 2 of a and 16 stores; the
    # spilling adds 32 reloads and 33 spills. In the trace they sit at the lines of the ops they serve.
    check("DMA 115 transfers" in so, f"psum_blocks: DMA transfers in the summary: {so!r}")
    ev = load_json(trace)
    events = ev["traceEvents"] if isinstance(ev, dict) else ev
    dma = [e for e in events if e.get("ph") == "X" and e.get("cat") == "dma"]
    spills = [e for e in dma if e["args"]["nki_source_location"].endswith("psum_blocks.py:14")
              and e["args"]["operands"].startswith("dst=hbm")]
    reloads = [e for e in dma if e["args"]["nki_source_location"].endswith("psum_blocks.py:16")
               and " src=hbm" in e["args"]["operands"]]
    check(spills and reloads, "psum_blocks: the matmul's spills and the multiply's reloads are in the trace")

# ---- SBUF: big and acc need 256 KiB per partition each, SBUF has 192 KiB (trn1)
SBUF_BODY = """@nki.jit
def k(x):
    out = nl.ndarray((8, 64 * 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    big = nl.ndarray((nl.par_dim(8), 64, 1024), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((nl.par_dim(8), 64, 1024), dtype=nl.float32, buffer=nl.sbuf){placed}
    for i in nl.affine_range(64):
        big[:, i, :] = nl.load(x[:, i * 1024:(i + 1) * 1024])
    for i in nl.affine_range(64):
        acc[:, i, :] = nl.exp(big[:, i, :])
    for i in nl.affine_range(64):
        acc[:, i, :] = nl.add(acc[:, i, :], big[:, 63 - i, :])
    for i in nl.affine_range(64):
        nl.store(out[:, i * 1024:(i + 1) * 1024], value=acc[:, i, :])
    return out
"""
sbuf = write_kernel(d, "sbuf_big", SBUF_BODY.format(placed=""))
x = rng.standard_normal((8, 64 * 1024)).astype(f32)
xp = save(d, "x.npy", x)
out = os.path.join(d, "out_sbuf")
rc, so, se = run(sbuf, "--target", "trn1", "--inputs", xp, "-o", out)
check_equal(rc, 0, f"sbuf_big exit code (stderr: {se})")
# (big's loads write its HBM slots directly: a load into a slice is one DMA, ir/forward.cpp)
check("sbuf_big.py:9:11: note: tensor 'big' (262144 bytes per partition) does not fit in SBUF; spilled to HBM with "
      "128 reload and 0 spill DMAs" in se, f"sbuf_big spill note for big: {se!r}")
check("sbuf_big.py:10:11: note: tensor 'acc' (262144 bytes per partition) does not fit in SBUF; spilled to HBM with "
      "64 reload and 128 spill DMAs" in se, f"sbuf_big spill note for acc: {se!r}")
if rc == 0:
    o = np.load(os.path.join(out, "output_0.npy")).reshape(8, 64, 1024)
    x3 = x.astype(np.float64).reshape(8, 64, 1024)
    g = np.exp(x3) + x3[:, ::-1, :]
    check(np.allclose(o, g, rtol=1e-5, atol=1e-5), f"sbuf_big: max error {np.abs(o - g).max()}")

# ---- a write that keeps what its predicate does not select: the spilled block is reloaded before it
pred = write_kernel(d, "sbuf_predicated", """@nki.jit
def k(x, y):
    out = nl.ndarray((8, 64 * 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    big = nl.ndarray((nl.par_dim(8), 64, 1024), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(64):
        big[:, i, :] = nl.load(x[:, i * 1024:(i + 1) * 1024])
    for i in nl.affine_range(64):
        t = nl.load(y[:, i * 1024:(i + 1) * 1024])
        nisa.tensor_copy_predicated(src=t, dst=big[:, i, :], predicate=nl.greater(t, 0.0))
    for i in nl.affine_range(64):
        nl.store(out[:, i * 1024:(i + 1) * 1024], value=big[:, i, :])
    return out
""")
y = rng.standard_normal((8, 64 * 1024)).astype(f32)
out = os.path.join(d, "out_pred")
rc, so, se = run(pred, "--target", "trn1", "--inputs", xp, save(d, "y.npy", y), "-o", out)
check_equal(rc, 0, f"sbuf_predicated exit code (stderr: {se})")
check("sbuf_predicated.py:9:11: note: tensor 'big' (262144 bytes per partition) does not fit in SBUF; spilled to HBM "
      "with 64 reload and 64 spill DMAs" in se, f"sbuf_predicated spill note: {se!r}")
if rc == 0:
    o = np.load(os.path.join(out, "output_0.npy"))
    check(np.array_equal(o, np.where(y > 0, y, x)), "sbuf_predicated: the unselected elements keep x")

# ---- a kernel that places a tensor itself manages its memory: the capacity error stays
placed = write_kernel(d, "sbuf_placed", SBUF_BODY.format(
    placed="\n    fixed = nl.ndarray((nl.par_dim(8), 16), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))"))
rc, so, se = run(placed, "--target", "trn1", "--inputs", xp, "-o", os.path.join(d, "out_placed"))
check_equal(rc, 1, "sbuf_placed exit code")
check("sbuf_placed.py:9:11: error: SBUF capacity exceeded: tensor 'big' needs 262144 bytes per partition" in se,
      f"sbuf_placed capacity error: {se!r}")
check("note:" not in se, f"sbuf_placed: nothing spilled: {se!r}")

# ---- the choice: the tile whose spill adds the fewest DMAs per op of its live range. 'keep' (52 KiB per partition,
# loaded once, read twice, live through the loop; the print pins its load before the loop) goes; 'acc', read and
# written in every iteration, and the loop's short-lived tiles stay. 4 x 52 KiB do not fit in 192 KiB (trn1).
# 'keep' is a plain copy of the input x, so it is not stored: it is loaded again from x at each of its two reads.
keep = write_kernel(d, "keep", """@nki.jit
def k(x, y):
    out = nl.ndarray((128, 13312), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((nl.par_dim(128), 13312), dtype=nl.float32)
    keep = nl.load(x)
    nl.device_print("keep", keep[0:1, 0:1])
    for i in nl.affine_range(4):
        t = nl.load(y[i])
        v = nl.multiply(t, 3.0)
        acc[...] = nl.add(acc, v)
    w = nl.multiply(keep, acc)
    nl.store(out, value=w)
    return out
""")
x = rng.standard_normal((128, 13312)).astype(f32)
y = rng.standard_normal((4, 128, 13312)).astype(f32)
out = os.path.join(d, "out_keep")
rc, so, se = run(keep, "--target", "trn1", "--inputs", save(d, "kx.npy", x), save(d, "ky.npy", y), "-o", out)
check_equal(rc, 0, f"keep exit code (stderr: {se})")
notes = [l for l in se.splitlines() if "note:" in l]
check_equal(notes, [keep + ":10:12: note: tensor 'keep' (53248 bytes per partition) does not fit in SBUF; re-loaded "
                    "from input 'x' before each use (2 loads)"], "keep: only 'keep' is dropped")
# The kernel's own 6 transfers less the load of x, and the 2 loads of x at the reads.
check("DMA 7 transfers" in so, f"keep: DMA transfers: {so!r}")
if rc == 0:
    o = np.load(os.path.join(out, "output_0.npy"))
    g = x * (3 * y.astype(np.float64)).sum(0)
    check(np.allclose(o, g, rtol=1e-5, atol=1e-4), f"keep: max error {np.abs(o - g).max()}")

# ---- three live ranges of one 100 KiB tile: the allocator rotates a tile's ranges through a second buffer
# (tile_buffers, ir/rename.cpp) only where both fit; two do not fit in trn1's 175.7 KiB, one does, so nothing is
# spilled (with the rotation, the buffer of ranges 0 and 2 was live across range 1 and 'w' was re-loaded).
ranges = write_kernel(d, "three_ranges", """@nki.jit
def k(x):
    out = nl.ndarray((3, 128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    w = nl.ndarray((nl.par_dim(128), 25600), dtype=nl.float32, buffer=nl.sbuf)
    for j in range(3):
        w[...] = nl.load(x[j])
        nl.store(out[j], value=nl.sum(w, axis=1, keepdims=True))
    return out
""")
x = rng.standard_normal((3, 128, 25600)).astype(f32)
out = os.path.join(d, "out_ranges")
rc, so, se = run(ranges, "--target", "trn1", "--inputs", save(d, "rx.npy", x), "-o", out)
check_equal(rc, 0, f"three_ranges exit code (stderr: {se})")
check("note:" not in se, f"three_ranges: nothing spilled: {se!r}")
check("DMA 6 transfers" in so, f"three_ranges: the kernel's own 6 transfers: {so!r}")
if rc == 0:
    o = np.load(os.path.join(out, "output_0.npy"))
    g = x.astype(np.float64).sum(2, keepdims=True)
    check(np.allclose(o, g, rtol=1e-5, atol=1e-3), f"three_ranges: max error {np.abs(o - g).max()}")

finish()
