"""End to end: the 3D and 4D indirect forms of nki.isa.dma_transpose (nki-isa.md §3.5 dma_transpose, swdge,
trn2+): src [S, A, F] / [S, A, B, F] on HBM through .ap(vector_offset=idx) gathers the blocks src[idx[j]];
dst = src[idx].transpose(2, 1, 0) / (3, 1, 2, 0), bit-exact against numpy; oob_mode.skip leaves the dropped
blocks' dst elements untouched; (128, C) index tiles (rows = indices.T.flatten()[:S]); the 4D shape rule, the
shape checks and index columns on dma_copy as located errors."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir

d = tmpdir()
rng = np.random.default_rng(17)

KERNEL = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def tgather(table, idx):
    S = idx.shape[0]
    {shapes}
    out = nl.ndarray(DST, dtype=table.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((S, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray(DST, dtype=table.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=7.0)
    nisa.dma_transpose(dst=t, src=table.ap(PATTERN, vector_offset=it, indirect_dim=0){extra})
    nisa.dma_copy(dst=out, src=t)
    return out
'''
SHAPES3 = "R, A, F = table.shape\n    DST = (F, A, S)\n    PATTERN = [[A * F, S], [F, A], [1, F]]"
SHAPES4 = ("R, A, B, F = table.shape\n    DST = (F, A, B, S)\n"
           "    PATTERN = [[A * B * F, S], [B * F, A], [F, B], [1, F]]")


def kernel(name, shapes, extra=""):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(KERNEL.replace("{shapes}", shapes).replace("{extra}", extra))
    return path


def bf16_bits(x):
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


SEVEN = bf16_bits(7.0)
CASES = [  # (name, shapes, table shape, S, numpy permutation)
    ("t3", SHAPES3, (200, 3, 40), 32, (2, 1, 0)),
    ("t3_wide", SHAPES3, (150, 2, 128), 128, (2, 1, 0)),
    ("t4_b1", SHAPES4, (90, 4, 1, 24), 48, (3, 1, 2, 0)),
    ("t4_a1", SHAPES4, (90, 1, 5, 16), 16, (3, 1, 2, 0)),
]
for name, shapes, tshape, S, perm in CASES:
    table = bf16_bits(rng.normal(size=tshape))
    idx = rng.integers(0, tshape[0], size=(S, 1)).astype(np.uint32)
    pt, pi = save(d, name + "_t.npy", table), save(d, name + "_i.npy", idx)
    out = os.path.join(d, name)
    rc, so, se = run(kernel(name + ".py", shapes), "--inputs", pt + ":bfloat16", pi, "-o", out, "-q")
    check_equal(rc, 0, f"{name}: exit code ({se})")
    if rc != 0:
        continue
    y = bf16_bits(np.load(os.path.join(out, "output_0.npy")))
    want = table[idx[:, 0]].transpose(perm)
    check(y.shape == want.shape and np.array_equal(y, want), f"{name}: dst == table[idx].transpose{perm} bit-exact")
    # The instruction carries the permutation and the source shape; a binary of it runs the same.
    asm, binf, out2 = (os.path.join(d, name + x) for x in (".s", ".nkibin", "-prog"))
    rc, so, se = run(kernel(name + ".py", shapes), "--inputs", pt + ":bfloat16", pi, "-o", out, "-q", "--emit", "asm",
                     asm)
    line = [ln for ln in open(asm).read().splitlines() if "dma_transpose" in ln]
    tdims = " ".join(f"tdim{k}={v}" for k, v in enumerate((S,) + tshape[1:]) if v != 1)  # 1 is the default
    axes = "axes=210" if len(tshape) == 3 else "axes=3120"
    check(len(line) == 1 and "ind=1" in line[0] and f"{axes} {tdims} " in line[0], f"{name}: asm {line}")
    rc, so, se = run(kernel(name + ".py", shapes), "--inputs", pt + ":bfloat16", pi, "-o", out, "-q", "--emit", "bin",
                     binf)
    rc2, so, se = run("--program", binf, "--inputs", pt + ":bfloat16", pi, "-o", out2, "-q")
    check(rc == 0 and rc2 == 0 and open(os.path.join(out, "output_0.npy"), "rb").read() ==
          open(os.path.join(out2, "output_0.npy"), "rb").read(), f"{name}: --program gives identical output ({se})")

# oob_mode.skip in 3D: the dropped blocks (rows 3 and 17) keep the memset value in dst[:, :, j].
table = bf16_bits(rng.normal(size=(60, 2, 32)))
idx = rng.integers(0, 60, size=(32, 1)).astype(np.uint32)
idx[3, 0], idx[17, 0] = 60, 999
pt, pi = save(d, "skip_t.npy", table), save(d, "skip_i.npy", idx)
rc, so, se = run(kernel("skip.py", SHAPES3, ", oob_mode=nisa.oob_mode.skip"), "--inputs", pt + ":bfloat16", pi,
                 "-o", os.path.join(d, "skip"), "-q")
check_equal(rc, 0, f"skip: exit code ({se})")
if rc == 0:
    y = bf16_bits(np.load(os.path.join(d, "skip", "output_0.npy")))
    ok = idx[:, 0] < 60
    want = np.full((32, 2, 32), SEVEN, np.uint16)
    want[:, :, ok] = table[idx[ok, 0]].transpose(2, 1, 0)
    check(np.array_equal(y, want), "3D oob_mode.skip: dropped blocks leave their dst elements untouched")
rc, so, se = run(kernel("oob.py", SHAPES3), "--inputs", pt + ":bfloat16", pi, "-o", os.path.join(d, "oob"), "-q")
check(rc == 1 and "oob.py:17:5: error: dma_transpose: out-of-bounds vector_offset on operand 'src': partition 3 uses "
      "row 60 of a tensor with 60 rows (oob_mode=error; oob_mode=skip drops the row)" in se, f"3D oob error: {se!r}")

# Several index columns: a (128, C) vector_offset holds the row indices column after column; the first S of
# indices.T.flatten() are used (S up to 128 x C).
MULTI = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def tcols(table, idx, S=256):
    R, A, F = table.shape
    out = nl.ndarray((F, A, S), dtype=table.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray(idx.shape, dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((F, A, S), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=table.ap([[A * F, S], [F, A], [1, F]], vector_offset=it, indirect_dim=0))
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def copy_cols(table, idx):
    R, A, F = table.shape
    out = nl.ndarray((256, A * F), dtype=table.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray(idx.shape, dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    nisa.dma_copy(dst=out, src=table.ap([[A * F, 256], [1, A * F]], vector_offset=it, indirect_dim=0))
    return out
'''
mk = os.path.join(d, "cols.py")
with open(mk, "w") as f:
    f.write(MULTI)
for C, S, tshape in ((2, 256, (300, 1, 64)), (3, 320, (500, 2, 16)), (2, 64, (100, 2, 8))):
    table = bf16_bits(rng.normal(size=tshape))
    idx = rng.integers(0, tshape[0], size=(128, C)).astype(np.uint32)
    pt, pi = save(d, f"c{C}_{S}_t.npy", table), save(d, f"c{C}_{S}_i.npy", idx)
    out = os.path.join(d, f"c{C}_{S}")
    rc, so, se = run(mk, "-k", "tcols", "--arg", f"S={S}", "--inputs", pt + ":bfloat16", pi, "-o", out, "-q")
    check_equal(rc, 0, f"(128, {C}) indices, S={S}: exit code ({se})")
    if rc == 0:
        rows = idx.T.flatten()[:S]
        want = table[rows].transpose(2, 1, 0)
        y = bf16_bits(np.load(os.path.join(out, "output_0.npy")))
        check(y.shape == want.shape and np.array_equal(y, want),
              f"(128, {C}) indices, S={S}: dst == table[idx.T.flatten()[:S]].transpose(2, 1, 0)")
table = bf16_bits(rng.normal(size=(50, 1, 16)))
pt = save(d, "cm_t.npy", table)
rc, so, se = run(mk, "-k", "tcols", "--arg", "S=272", "--inputs", pt + ":bfloat16",
                 save(d, "cm_i.npy", np.zeros((128, 2), np.uint32)), "-o", d)
check(rc == 1 and "cols.py:13:35: error: ap: vector_offset must have shape (272, 1) (one row index per partition of "
      "the pattern), got (128, 2)" in se, f"more rows than indices: {rc} {se!r}")
rc, so, se = run(mk, "-k", "copy_cols", "--inputs", pt + ":bfloat16",
                 save(d, "cc_i.npy", np.zeros((128, 2), np.uint32)), "-o", d)
check(rc == 1 and "cols.py:24:5: error: dma_copy: a vector_offset with several columns (shape (128, 2)) is only "
      "supported by dma_transpose; use one row index per partition (shape (256, 1))" in se,
      f"dma_copy with index columns: {rc} {se!r}")

# Errors (located at the dma_transpose line).
ERRORS = [
    (SHAPES4, (40, 2, 3, 8), 16, "dma_transpose: an indirect 4D src needs src.shape[1] or src.shape[2] to be 1, got "
                                 "src of shape (16, 2, 3, 8)"),
    (SHAPES3, (40, 2, 8), 24, "dma_transpose: an indirect src needs src.shape[0] to be a multiple of 16 in [16, 128], "
                              "got src of shape (24, 2, 8)"),
    (SHAPES3.replace("DST = (F, A, S)", "DST = (F, S, A)"), (40, 2, 8), 16,
     "dma_transpose: dst has shape (8, 16, 2) but src of shape (16, 2, 8) transposed by (2, 1, 0) has shape (8, 2, 16)"),
]
for i, (shapes, tshape, S, msg) in enumerate(ERRORS):
    table = bf16_bits(rng.normal(size=tshape))
    pt = save(d, f"e{i}_t.npy", table)
    pi = save(d, f"e{i}_i.npy", np.zeros((S, 1), np.uint32))
    k = kernel(f"e{i}.py", shapes)
    rc, so, se = run(k, "--inputs", pt + ":bfloat16", pi, "-o", os.path.join(d, f"e{i}"))
    check_equal(rc, 1, f"error {i}: exit code")
    check(f"{k}:17:5: error: {msg}" in se, f"error {i}: expected '{msg}', got {se!r}")
finish()
