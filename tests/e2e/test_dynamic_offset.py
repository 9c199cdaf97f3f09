"""End to end: dynamic offsets on on-chip operands and the remaining view methods
(tests/e2e/kernels/dynamic_offset.py, docs/dynamic-offsets.md) against numpy goldens: .ap(scalar_offset=) on a
src and a dst, a register offset in nl.fori_loop (sliding window), select() with a tensor or register index on
SBUF and HBM, vector_select, rearrange; asm and binary round trips; the out-of-bounds run-time error; the
compile errors; the MIN_II_DYNAMIC floor in the --trace timing."""
import os
import subprocess

import numpy as np

from common import NKISIM, SRC, check, check_equal, finish, load_json, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "dynamic_offset.py")
d = tmpdir()
rng = np.random.default_rng(11)
x3 = rng.standard_normal((128, 8, 32), dtype=np.float32)
x2 = rng.standard_normal((128, 64), dtype=np.float32)
p3, p2 = save(d, "x3.npy", x3), save(d, "x2.npy", x2)


def idx(v, name=None, dt=np.int32):
    return save(d, name or f"idx_{v}_{np.dtype(dt).name}.npy", np.array([[v]], dtype=dt))


def run_kernel(name, inputs, *extra, n_out=1):
    out = os.path.join(d, f"{name}-{len(os.listdir(d))}")
    rc, so, se = run(K, "-k", name, "--inputs", *inputs, "-o", out, "-q", *extra)
    check_equal(rc, 0, f"{name} {extra} exit code (stderr: {se})")
    if rc != 0:
        return [None] * n_out
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(n_out)]


# .ap(scalar_offset=) on a src: every row index, timed and functional, int32 and uint16 offsets.
for v in (0, 3, 7):
    for mode in ((), ("--functional",)):
        (y,) = run_kernel("copy_src_offset", [p3, idx(v)], *mode)
        check(y is not None and np.array_equal(y, x3[:, v, :]), f"copy_src_offset row {v} {mode}")
(y,) = run_kernel("copy_src_offset", [p3, idx(5, dt=np.uint16)])
check(y is not None and np.array_equal(y, x3[:, 5, :]), "copy_src_offset with a uint16 offset")

# A dynamic dst: only row idx is written.
for v in (0, 2, 3):
    (y,) = run_kernel("copy_dst_offset", [p2, idx(v)])
    want = np.zeros((128, 4, 64), dtype=np.float32)
    want[:, v, :] = 2 * x2
    check(y is not None and np.array_equal(y, want), f"copy_dst_offset row {v}")

# A register offset inside nl.fori_loop: a sliding-window sum, one fp32 rounding per add.
for mode in ((), ("--functional",)):
    (y,) = run_kernel("sliding_window", [p2], *mode)
    want = np.zeros((128, 61), dtype=np.float32)
    for i in range(4):
        want = (want + x2[:, i:i + 61]).astype(np.float32)
    check(y is not None and np.array_equal(y, want), f"sliding_window {mode}")

# select() with a tensor index on SBUF (both inputs of tensor_tensor), with a register, and on HBM.
(y,) = run_kernel("select_sbuf", [p3, idx(6)])
check(y is not None and np.array_equal(y, x3[:, 6, :] + x3[:, 6, :]), "select_sbuf")
(y,) = run_kernel("select_register", [p3, idx(4)])
check(y is not None and np.array_equal(y, x3[:, 4, :]), "select_register")
xb = rng.standard_normal((5, 128, 32), dtype=np.float32)
pb = save(d, "xb.npy", xb)
for v in (0, 4):
    (y,) = run_kernel("select_hbm", [pb, idx(v)])
    check(y is not None and np.array_equal(y, xb[v]), f"select_hbm {v}")

# vector_select gather: one row per partition, with repeats.
rows = rng.integers(0, 100, size=(128, 1)).astype(np.int32)
xr = rng.standard_normal((100, 48), dtype=np.float32)
(y,) = run_kernel("vector_gather", [save(d, "xr.npy", xr), save(d, "rows.npy", rows)])
check(y is not None and np.array_equal(y, xr[rows[:, 0]]), "vector_gather")

# rearrange: on chip (split + permute) and on HBM (split + permute + merge).
y0, y1 = run_kernel("rearrange_views", [p2], n_out=2)
check(y0 is not None and np.array_equal(y0, x2.reshape(128, 4, 16).transpose(0, 2, 1)), "rearrange on chip")
check(y1 is not None and np.array_equal(y1, x2.reshape(2, 64, 64).transpose(1, 0, 2).reshape(128, 64)),
      "rearrange on HBM")

# Asm and binary round trips (the dynamic offset is part of the operand's text and bytes): kernel -> bin ->
# nki-objdump == kernel -> asm, asm -> nki-as == the same bytes, and the binary runs with the same output.
TOOLS = os.path.dirname(os.path.abspath(NKISIM))


def tool(name, *args):
    p = subprocess.run([os.path.join(TOOLS, name), *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


for kname, inputs, want in (("copy_src_offset", [p3, idx(2)], x3[:, 2, :]), ("sliding_window", [p2], None),
                            ("copy_dst_offset", [p2, idx(1)], None)):
    asm, binf, bin2 = (os.path.join(d, f"{kname}.{e}") for e in ("s", "nkibin", "2.nkibin"))
    rc, so, se = run(K, "-k", kname, "--inputs", *inputs, "--emit", "asm", asm, "-q", "-o", os.path.join(d, "e1"))
    check_equal(rc, 0, f"{kname} --emit asm: {se}")
    rc, so, se = run(K, "-k", kname, "--inputs", *inputs, "--emit", "bin", binf, "-q", "-o", os.path.join(d, "e2"))
    check_equal(rc, 0, f"{kname} --emit bin: {se}")
    text = open(asm).read()
    check("dyn(" in text, f"{kname}: the asm shows a dynamic offset")
    rc, dumped, se = tool("nki-objdump", binf)
    check(rc == 0 and dumped == text, f"{kname}: nki-objdump of --emit bin equals --emit asm ({se.strip()})")
    rc, _, se = tool("nki-as", asm, "-o", bin2)
    check(rc == 0 and open(bin2, "rb").read() == open(binf, "rb").read(), f"{kname}: nki-as gives the same bytes ({se})")
    out = os.path.join(d, f"rt-{kname}")
    rc, so, se = run("--program", binf, "--inputs", *inputs, "-o", out, "-q")
    check_equal(rc, 0, f"{kname}: --program run: {se}")
    if rc == 0:
        ref = np.load(os.path.join(d, "e1", "output_0.npy"))
        check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), ref), f"{kname}: --program output")
        if want is not None:
            check(np.array_equal(ref, want), f"{kname}: output of the asm run")
check("dyn(sbuf:int32@p" in open(os.path.join(d, "copy_src_offset.s")).read(), "an SBUF offset source in the asm")
check(" dyn(r" in open(os.path.join(d, "sliding_window.s")).read() or "]dyn(r" in open(os.path.join(d, "sliding_window.s")).read(),
      "a register offset source in the asm")

# An out-of-bounds offset is a run-time error at the instruction's kernel line.
for v, lo, hi in ((8, 1024, 1152), (-1, -128, 0)):
    rc, so, se = run(K, "-k", "copy_src_offset", "--inputs", p3, idx(v, f"oob{v}.npy"), "-o", os.path.join(d, "oob"))
    check_equal(rc, 1, f"out-of-bounds offset {v} exits 1")
    check(f"{K}:19:5: error: tensor_copy: out-of-bounds dynamic offset on operand 'src': offset {v} (read from "
          f"SBUF) x 32 elements moves the access to bytes [{lo}, {hi}) of each partition, outside its tensor's "
          f"bytes [0, 1024)" in se, f"oob {v} diagnostic: {se}")

# Compile errors: a dynamic offset along the partition dim on chip, a bad rearrange.
rc, so, se = run(K, "-k", "partition_offset", "--inputs", p2, idx(0))
check_equal(rc, 1, "partition_offset exits 1")
check(f"{K}:161:9: error: ap: a dynamic scalar_offset on an on-chip tensor cannot move the partition dimension "
      "(indirect_dim=0); use indirect_dim >= 1 to move along a free dimension of 't'" in se, f"dim 0 error: {se}")
rc, so, se = run(K, "-k", "bad_rearrange", "--inputs", p2)
check_equal(rc, 1, "bad_rearrange exits 1")
check(f"{K}:170:9: error: rearrange: (b a) of the dst pattern cannot be merged: its dimensions are not contiguous "
      "in memory" in se, f"rearrange error: {se}")

# Timing: the dynamic tensor_copy costs MIN_II_DYNAMIC = 600 Vector cycles; the static one max(MIN_II, 32) = 64.
tr = os.path.join(d, "trace.json")
rc, so, se = run(K, "-k", "dynamic_cost", "--inputs", p3, idx(1), "-o", os.path.join(d, "cost"), "--trace", tr,
                 "-q", "--target", "trn1")
check_equal(rc, 0, f"dynamic_cost: {se}")
if rc == 0:
    ev = [e for e in load_json(tr)["traceEvents"] if e["ph"] == "X" and e["name"].startswith("tensor_copy")]
    durs = sorted(round(e["dur"] * 1000 * 1.12) for e in ev)  # us -> Vector cycles at 1.12 GHz (trn1)
    check_equal(len(ev), 2, "two tensor_copy slices")
    check(len(durs) == 2 and durs[1] == 600, f"the dynamic tensor_copy takes 600 cycles: {durs}")
finish()
