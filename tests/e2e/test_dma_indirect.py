"""End to end: indirect DMA (nki-isa.md §3.5, nki-language.md §5) against numpy: row gather a[2*arange(64)]
with .ap(vector_offset=...), row scatter, scalar_offset, oob_mode.skip leaving pre-filled rows untouched,
oob_mode.error as a located run-time error, and the located compile errors of the DGE / ap() rules."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
rng = np.random.default_rng(7)

GATHER = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def gather(a, idx):
    R, F = a.shape
    P = idx.shape[0]
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0){mode})
    nisa.dma_copy(dst=out, src=t)
    return out
'''


def kernel(name, src):
    return write_file(d, name, src)


def run_ok(path, inputs, what, target=None):
    out = os.path.join(d, "out_" + what.replace(" ", "_"))
    args = [path, "--inputs", *inputs, "-o", out, "-q"] + (["--target", target] if target else [])
    rc, so, se = run(*args)
    check_equal(rc, 0, f"{what}: exit code (stderr: {se})")
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(4) if os.path.exists(os.path.join(out, f"output_{i}.npy"))]


# Gather a[2*arange(64)] (the [T:dma_copy] golden), on trn2 and trn3, uint32 and int32 indices.
a = rng.normal(size=(128, 64)).astype(np.float32)
g = kernel("gather.py", GATHER.replace("{mode}", ""))
for target in ("trn2", "trn3"):
    for dt in (np.uint32, np.int32):
        idx = (2 * np.arange(64)).astype(dt).reshape(64, 1)
        (y,) = run_ok(g, [save(d, "a.npy", a), save(d, f"idx_{dt.__name__}.npy", idx)], f"gather {target} {dt.__name__}", target)
        check(np.array_equal(y, a[2 * np.arange(64)]), f"gather {target} {dt.__name__}: rows differ")
# A permutation with repeats, bf16 rows (bit-exact).
ab = rng.normal(size=(100, 48)).astype(np.float32)
idx = rng.integers(0, 100, size=(128, 1)).astype(np.uint32)
(y,) = run_ok(g, [save(d, "ab.npy", ab), save(d, "idx_r.npy", idx)], "gather random")
check(np.array_equal(y, ab[idx[:, 0]]), "gather random rows")

# oob_mode.error: a located run-time error at the dma_copy line.
bad = (2 * np.arange(64)).astype(np.uint32).reshape(64, 1)
bad[5, 0] = 128
rc, so, se = run(g, "--inputs", save(d, "a.npy", a), save(d, "bad.npy", bad), "-o", os.path.join(d, "bad"))
check_equal(rc, 1, "out-of-bounds gather exits 1")
check(f"{g}:14:5: error: dma_copy: out-of-bounds vector_offset on operand 'src': partition 5 uses row 128 of a tensor "
      "with 128 rows (oob_mode=error; oob_mode=skip drops the row)" in se, f"oob diagnostic: {se}")

# oob_mode.skip: dropped rows leave the pre-filled destination untouched.
SKIP = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def gather_skip(a, idx, fill):
    R, F = a.shape
    P = idx.shape[0]
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=fill)
    nisa.dma_copy(dst=t, src=a.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0), oob_mode=nisa.oob_mode.skip)
    nisa.dma_copy(dst=out, src=t)
    return out
'''
s = kernel("skip.py", SKIP)
idx = (2 * np.arange(64)).astype(np.uint32).reshape(64, 1)
idx[[3, 17, 60], 0] = [128, 1000, 4000000000]
fill = np.full((64, 64), -7.0, np.float32)
(y,) = run_ok(s, [save(d, "a.npy", a), save(d, "idx_s.npy", idx), save(d, "fill.npy", fill)], "gather skip")
want = a[np.minimum(idx[:, 0], 127)].copy()
want[[3, 17, 60]] = -7.0
check(np.array_equal(y, want), "skip: dropped rows keep the pre-filled values")

# Scatter: out starts as a copy of base; rows p of t go to rows idx[p] of out.
SCATTER = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def scatter(base, rows, idx):
    R, F = base.shape
    P = idx.shape[0]
    out = nl.ndarray((R, F), dtype=base.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=base)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((P, F), dtype=rows.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=rows)
    nisa.dma_copy(dst=out.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0), src=t, oob_mode=nisa.oob_mode.skip)
    return out
'''
sc = kernel("scatter.py", SCATTER)
base = rng.normal(size=(96, 32)).astype(np.float32)
rows = rng.normal(size=(40, 32)).astype(np.float32)
perm = rng.permutation(96)[:40].astype(np.uint32)
perm[9] = 500  # dropped
(y,) = run_ok(sc, [save(d, "base.npy", base), save(d, "rows.npy", rows), save(d, "perm.npy", perm.reshape(40, 1))], "scatter")
want = base.copy()
for p in range(40):
    if perm[p] < 96:
        want[perm[p]] = rows[p]
check(np.array_equal(y, want), "scatter rows")

# scalar_offset: a 1-element SBUF tensor shifts the whole pattern by s rows (prod(base.shape[1:]) each).
SCALAR = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def window(a, off):
    R, F = a.shape
    out = nl.ndarray((16, F), dtype=a.dtype, buffer=nl.shared_hbm)
    o = nl.ndarray((1, 1), dtype=off.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=o, src=off)
    t = nl.ndarray((16, F), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a.ap([[F, 16], [1, F]], offset=F, scalar_offset=o))
    nisa.dma_copy(dst=out, src=t)
    return out
'''
w = kernel("window.py", SCALAR)
for s_ in (0, 5, 111):
    (y,) = run_ok(w, [save(d, "a.npy", a), save(d, f"off{s_}.npy", np.array([[s_]], np.int32))], f"scalar offset {s_}")
    check(np.array_equal(y, a[1 + s_:17 + s_]), f"scalar offset {s_}")
rc, so, se = run(w, "--inputs", save(d, "a.npy", a), save(d, "off112.npy", np.array([[112]], np.int32)), "-o", os.path.join(d, "w"))
check_equal(rc, 1, "scalar offset out of bounds exits 1")
check(f"{w}:13:5: error: dma_copy: out-of-bounds scalar_offset on operand 'src': partition 15 uses row 128 of a tensor "
      "with 128 rows" in se, f"scalar oob diagnostic: {se}")
# A scalar_offset is allowed in every DGE mode (the DGE deep-dive's table), unlike a vector_offset.
for mode in ("hwdge", "none", "swdge"):
    wm = kernel(f"window_{mode}.py", SCALAR.replace("scalar_offset=o))", f"scalar_offset=o), dge_mode=nisa.dge_mode.{mode})"))
    (y,) = run_ok(wm, [save(d, "a.npy", a), save(d, "off7.npy", np.array([[7]], np.int32))], f"scalar offset, {mode}")
    check(np.array_equal(y, a[8:24]), f"scalar offset with dge_mode.{mode}")

# Compile-time rules: located errors with exact messages.
ERRORS = [
    (", dge_mode=nisa.dge_mode.hwdge", "dma_copy: a vector_offset (gather/scatter) needs dge_mode=swdge (or unknown), not hwdge"),
    (", dge_mode=nisa.dge_mode.none", "dma_copy: a vector_offset (gather/scatter) needs dge_mode=swdge (or unknown), not none"),
    (", engine=nisa.engine.scalar", "dma_copy: dge_mode=swdge (software DGE, the mode of an indirect access) builds descriptors on the gpsimd "
     "engine, not scalar; a sync or scalar trigger needs dge_mode=hwdge"),
]
for i, (mode, msg) in enumerate(ERRORS):
    k = kernel(f"err{i}.py", GATHER.replace("{mode}", mode))
    rc, so, se = run(k, "--inputs", save(d, "a.npy", a), save(d, "idx.npy", bad), "-o", os.path.join(d, f"e{i}"))
    check_equal(rc, 1, f"error {i}: exit code")
    check(f"{k}:14:5: error: {msg}" in se, f"error {i}: {se}")

MISC = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def misc(a, idx):
    t = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.sbuf)
    it = nl.ndarray((64, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    {line}
    return a
'''
MISC_ERRORS = [
    ("nisa.dma_copy(dst=t, src=a[0:64])\n    nisa.dma_copy(dst=t, src=a[0:64], oob_mode=nisa.oob_mode.skip)", 12,
     "dma_copy: oob_mode.skip (oob_skip) needs an indirect access pattern (.ap() with scalar_offset or "
     "vector_offset: ind != 0)"),
    ("nisa.dma_copy(dst=t, src=a[0:64], dge_mode=nisa.dge_mode.swdge, engine=nisa.engine.sync)", 11,
     "dma_copy: dge_mode=swdge (software DGE, the mode of an indirect access) builds descriptors on the gpsimd "
     "engine, not sync; a sync or scalar trigger needs dge_mode=hwdge"),
    ("nisa.dma_copy(dst=t, src=a[0:64], dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.vector)", 11,
     "dma_copy: dge_mode=hwdge must be triggered from the sync or scalar engine, not vector"),
    ("nisa.tensor_copy(dst=t, src=a.ap([[64, 64], [1, 64]], vector_offset=it))", 11,
     "tensor_copy: src is an indirect access pattern (.ap() with scalar_offset or vector_offset); only dma_copy and "
     "dma_compute accept one"),
    ("nisa.dma_copy(dst=t, src=a.ap([[64, 64], [1, 64]], vector_offset=it, scalar_offset=it))", 11,
     "ap: scalar_offset and vector_offset are mutually exclusive"),
    ("nisa.dma_copy(dst=t, src=a.ap([[64, 32], [1, 64]], vector_offset=it))", 11,
     "ap: vector_offset must have shape (32, 1) (one row index per partition of the pattern), got (64, 1)"),
    ("nisa.dma_copy(dst=t, src=t.ap([[64, 64], [1, 64]], vector_offset=it))", 11,
     "ap: vector_offset is only supported on HBM tensors, but 't' is in sbuf"),
    ("nisa.dma_copy(dst=t, src=a.ap([[64, 64], [1, 64]], vector_offset=it)[0:32])", 11,
     "an indirect access pattern (.ap() with a dynamic offset) cannot be indexed or viewed further; index the "
     "tensor before .ap()"),
]
for i, (line, ln, msg) in enumerate(MISC_ERRORS):
    k = kernel(f"misc{i}.py", MISC.replace("{line}", line))
    rc, so, se = run(k, "--inputs", save(d, "a.npy", a), save(d, "idx.npy", bad), "-o", os.path.join(d, f"m{i}"))
    check_equal(rc, 1, f"misc error {i}: exit code")
    check(f"{k}:{ln}:" in se and msg in se, f"misc error {i}: {se}")

# hwdge on trn1 is rejected at the call.
k = kernel("hw1.py", MISC.replace("{line}", "nisa.dma_copy(dst=t, src=a[0:64], dge_mode=nisa.dge_mode.hwdge)"))
rc, so, se = run(k, "--inputs", save(d, "a.npy", a), save(d, "idx.npy", bad), "-o", os.path.join(d, "hw1"), "--target", "trn1")
check_equal(rc, 1, "hwdge on trn1: exit code")
check(f"{k}:11:5: error: dma_copy: dge_mode=hwdge (hardware DGE) needs trn2 or later, not trn1" in se, f"hwdge trn1: {se}")
finish()
