"""End to end: nki.isa.dma_compute(unique_indices=False) (nki-isa.md §3.5): with duplicate indices the
scatter-add dst_hbm[idx] += src_sbuf accumulates every duplicate in index (partition) order in fp32, as
np.add.at; the gather-add dst_sbuf += src_hbm[idx] reads repeated rows. The `dup_idx` parameter survives
--emit asm / --emit bin and nki-sim --program gives byte-identical outputs."""
import os
import subprocess

import numpy as np

from common import NKISIM, SRC, check, check_equal, finish, run, save, tmpdir

d = tmpdir()
rng = np.random.default_rng(11)
TOOLS = os.path.dirname(os.path.abspath(NKISIM))

RMW = os.path.join(SRC, "tests", "e2e", "kernels", "dma_rmw.py")


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


table = (rng.normal(size=(40, 32)) * 100).astype(np.float32)
rows = (rng.normal(size=(128, 32)) * 100).astype(np.float32)
# Heavy duplication: 128 partitions over 40 rows, row 7 many times.
idx = rng.integers(0, 40, size=(128, 1)).astype(np.int32)
idx[::5] = 7
inputs = [save(d, "table.npy", table), save(d, "rows.npy", rows), save(d, "idx.npy", idx)]
want_g = (rows + table[idx[:, 0]]).astype(np.float32)
want_s = table.copy()
np.add.at(want_s, idx[:, 0], want_g)  # sequential fp32 accumulation in index order

k, unique = RMW, ["--arg", "unique=False"]
out = os.path.join(d, "dup")
asm, binf = os.path.join(d, "dup.s"), os.path.join(d, "dup.nkibin")
rc, so, se = run(k, *unique, "--inputs", *inputs, "-o", out, "-q", "--emit", "asm", asm)
check_equal(rc, 0, f"unique_indices=False: exit code ({se})")
if rc == 0:
    g = np.load(os.path.join(out, "output_0.npy"))
    s = np.load(os.path.join(out, "output_1.npy"))
    check(np.array_equal(g, want_g), "gather-add with repeated rows: t += table[idx]")
    check(np.array_equal(s, want_s), f"scatter-add with duplicates == np.add.at: max difference "
                                     f"{float(np.max(np.abs(s - want_s)))}")
    text = read(asm)
    check(sum("dma_compute" in ln and "dup_idx" in ln for ln in text.splitlines()) == 2,
          "asm: both indirect dma_compute carry dup_idx")
    # asm -> nki-as -> binary -> nki-sim --program: same outputs.
    p = subprocess.run([os.path.join(TOOLS, "nki-as"), asm, "-o", binf], capture_output=True, text=True, timeout=120)
    check_equal(p.returncode, 0, f"nki-as: exit code ({p.stderr})")
    p = subprocess.run([os.path.join(TOOLS, "nki-objdump"), binf], capture_output=True, text=True, timeout=120)
    check_equal(p.returncode, 0, f"nki-objdump: exit code ({p.stderr})")
    check(p.stdout == text, "asm -> bin -> objdump reproduces the asm text (dup_idx included)")
    out2 = os.path.join(d, "dup_prog")
    rc, so, se = run("--program", binf, "--inputs", *inputs, "-o", out2, "-q")
    check_equal(rc, 0, f"--program: exit code ({se})")
    for i in range(2):
        f = f"output_{i}.npy"
        if rc == 0:
            check(read(os.path.join(out, f), "rb") == read(os.path.join(out2, f), "rb"), f"--program {f} byte-identical")

# unique_indices=True (the default) with duplicates: not every duplicate is accumulated (the rows are
# read before any is written), so the result differs from np.add.at - the reason for unique_indices=False.
k, unique = RMW, ["--arg", "unique=True"]
out = os.path.join(d, "uniq")
rc, so, se = run(k, *unique, "--inputs", *inputs, "-o", out, "-q")
check_equal(rc, 0, f"unique_indices=True: exit code ({se})")
if rc == 0:
    s = np.load(os.path.join(out, "output_1.npy"))
    check(not np.array_equal(s, want_s), "unique_indices=True does not accumulate duplicates")
    last = table.copy()
    last[idx[:, 0]] = (table[idx[:, 0]] + want_g).astype(np.float32)  # last writer of each row wins
    check(np.array_equal(s, last), "unique_indices=True: each row gets its last partition's table[idx] + t")

# oob_mode.skip with duplicates: a dropped row adds nothing (gather: t keeps its row; scatter: no write).
idx2 = idx.copy()
idx2[3] = 40
idx2[77] = -1
inputs2 = [inputs[0], inputs[1], save(d, "idx2.npy", idx2)]
k, unique = RMW, ["--arg", "unique=False", "--arg", "skip=True"]
out = os.path.join(d, "skip")
rc, so, se = run(k, *unique, "--inputs", *inputs2, "-o", out, "-q")
check_equal(rc, 0, f"oob_mode.skip: exit code ({se})")
if rc == 0:
    ok = (idx2[:, 0] >= 0) & (idx2[:, 0] < 40)
    wg = rows.copy()
    wg[ok] = (rows[ok] + table[idx2[ok, 0]]).astype(np.float32)
    ws = table.copy()
    np.add.at(ws, idx2[ok, 0], wg[ok])
    check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), wg), "oob_mode.skip gather-add")
    check(np.array_equal(np.load(os.path.join(out, "output_1.npy")), ws), "oob_mode.skip scatter-add == np.add.at of the kept rows")
k, unique = RMW, ["--arg", "unique=False"]
rc, so, se = run(k, *unique, "--inputs", *inputs2, "-o", os.path.join(d, "err"), "-q")
check_equal(rc, 1, "gather-add with an out-of-bounds row and oob_mode.error fails")
check(f"{k}:20:5: error: dma_compute: out-of-bounds vector_offset on operand 'src1': partition 3 uses row 40 of a "
      "tensor with 40 rows (oob_mode=error; oob_mode=skip drops the row)" in se, f"located oob error, got {se}")
finish()
