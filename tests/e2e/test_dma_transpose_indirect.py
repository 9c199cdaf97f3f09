"""End to end: the indirect form of nki.isa.dma_transpose (nki-isa.md §3.5, swdge, trn2+): src on HBM through
.ap(vector_offset=idx) or .ap(scalar_offset=s); dst = src[idx[:, 0]].T (bit-exact, bf16), oob_mode.skip leaves
the dropped columns untouched, the shape rules as located errors, and the asm / binary round trip."""
import os
import subprocess

import numpy as np

from common import NKISIM, check, check_equal, finish, run, save, tmpdir

d = tmpdir()
rng = np.random.default_rng(3)
TOOLS = os.path.dirname(os.path.abspath(NKISIM))

KERNEL = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def tgather(table, idx):
    R, F = table.shape
    S = idx.shape[0]
    out = nl.ndarray((F, S), dtype=table.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((S, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((F, S), dtype=table.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=7.0)
    {body}
    nisa.dma_copy(dst=out, src=t)
    return out
'''
VEC = "nisa.dma_transpose(dst=t, src=table.ap([[F, S], [1, F]], vector_offset=it, indirect_dim=0){extra})"


def kernel(name, body):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(KERNEL.replace("{body}", body))
    return path


def bf16_bits(x):
    """bf16 values (exact in fp32, as nki-sim writes bf16 outputs) as raw bits."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


table_bits = bf16_bits(rng.normal(size=(300, 96)))  # bf16 table as raw bits (bit-exact transpose)
pt = save(d, "table.npy", table_bits)
for S in (16, 64, 128):
    idx = rng.integers(0, 300, size=(S, 1)).astype(np.uint32)
    k = kernel(f"v{S}.py", VEC.replace("{extra}", ""))
    out = os.path.join(d, f"v{S}")
    asm, binf = os.path.join(d, f"v{S}.s"), os.path.join(d, f"v{S}.nkibin")
    rc, so, se = run(k, "--inputs", pt + ":bfloat16", save(d, f"i{S}.npy", idx), "-o", out, "-q", "--emit", "asm", asm)
    check_equal(rc, 0, f"S={S}: exit code ({se})")
    if rc != 0:
        continue
    y = np.load(os.path.join(out, "output_0.npy"))
    want = table_bits[idx[:, 0]].T
    check(y.shape == want.shape and np.array_equal(bf16_bits(y), want), f"S={S}: dst == table[idx].T bit-exact")
    if S == 64:
        text = open(asm).read()
        line = [ln for ln in text.splitlines() if "dma_transpose" in ln]
        check(len(line) == 1 and "ind=1" in line[0] and "dge=1" in line[0], f"asm of the indirect transpose: {line}")
        p = subprocess.run([os.path.join(TOOLS, "nki-as"), asm, "-o", binf], capture_output=True, text=True, timeout=120)
        check_equal(p.returncode, 0, f"nki-as: exit code ({p.stderr})")
        p = subprocess.run([os.path.join(TOOLS, "nki-objdump"), binf], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and p.stdout == text, "asm -> bin -> objdump reproduces the asm text")
        out2 = os.path.join(d, "prog")
        rc, so, se = run("--program", binf, "--inputs", pt + ":bfloat16", os.path.join(d, "i64.npy"), "-o", out2, "-q")
        check(rc == 0 and open(os.path.join(out, "output_0.npy"), "rb").read() ==
              open(os.path.join(out2, "output_0.npy"), "rb").read(), f"--program: identical output ({se})")

# oob_mode.skip: rows 5 and 20 out of bounds keep the memset value in their dst columns.
idx = rng.integers(0, 300, size=(32, 1)).astype(np.uint32)
idx[5, 0] = 300
idx[20, 0] = 4000
pi = save(d, "ioob.npy", idx)
k = kernel("skip.py", VEC.replace("{extra}", ", oob_mode=nisa.oob_mode.skip"))
rc, so, se = run(k, "--inputs", pt + ":bfloat16", pi, "-o", os.path.join(d, "skip"), "-q")
check_equal(rc, 0, f"skip: exit code ({se})")
if rc == 0:
    y = bf16_bits(np.load(os.path.join(d, "skip", "output_0.npy")))
    want = np.full((96, 32), bf16_bits(7.0), np.uint16)
    ok = idx[:, 0] < 300
    want[:, ok] = table_bits[idx[ok, 0]].T
    check(np.array_equal(y, want), "oob_mode.skip: dropped rows leave their columns untouched")
k = kernel("err.py", VEC.replace("{extra}", ""))
rc, so, se = run(k, "--inputs", pt + ":bfloat16", pi, "-o", os.path.join(d, "err"), "-q")
check_equal(rc, 1, "oob_mode.error: exit code")
check(f"{k}:15:5: error: dma_transpose: out-of-bounds vector_offset on operand 'src': partition 5 uses row 300 of a "
      "tensor with 300 rows (oob_mode=error; oob_mode=skip drops the row)" in se, f"oob error, got {se}")

# scalar_offset: rows s .. s+S-1.
SCAL = '''so = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=so, src=idx[0:1, 0:1])
    nisa.dma_transpose(dst=t, src=table.ap([[F, S], [1, F]], scalar_offset=so, indirect_dim=0))'''
idx = np.full((48, 1), 37, np.int32)
k = kernel("scal.py", SCAL)
rc, so, se = run(k, "--inputs", pt + ":bfloat16", save(d, "is.npy", idx), "-o", os.path.join(d, "scal"), "-q")
check_equal(rc, 0, f"scalar_offset: exit code ({se})")
if rc == 0:
    y = bf16_bits(np.load(os.path.join(d, "scal", "output_0.npy")))
    check(np.array_equal(y, table_bits[37:37 + 48].T), "scalar_offset: dst == table[s:s+S].T")

ERRORS = [
    (VEC.replace("{extra}", ", dge_mode=nisa.dge_mode.hwdge"), 32, np.uint32,
     "dma_transpose: an indirect src needs software DGE (dge_mode.swdge or unknown), not dge_mode.hwdge"),
    (VEC.replace("{extra}", ""), 40, np.uint32,
     "dma_transpose: an indirect src needs src.shape[0] to be a multiple of 16 in [16, 128], got src of shape (40, 96)"),
    (VEC.replace("{extra}", ""), 32, np.int32, "dma_transpose: the vector_offset indices must be uint32, got int32"),
    ("nisa.dma_transpose(dst=t, src=table[0:S, :], dge_mode=nisa.dge_mode.swdge)", 16, np.uint32,
     "dma_transpose: dge_mode.swdge is the indirect form; src needs .ap() with vector_offset or scalar_offset"),
]
for i, (body, S, dt, msg) in enumerate(ERRORS):
    k = kernel(f"e{i}.py", body)
    rc, so, se = run(k, "--inputs", pt + ":bfloat16", save(d, f"ie{i}.npy", np.zeros((S, 1), dt)), "-o", os.path.join(d, f"e{i}"))
    check_equal(rc, 1, f"error {i}: exit code")
    check(f"{k}:15:5: error: {msg}" in se, f"error {i}: expected '{msg}', got {se}")
finish()
