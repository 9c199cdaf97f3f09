"""End to end: examples/tensor_add.py through the CLI, fp32 exact and bf16 correctly rounded, stats, trace."""
import os

import numpy as np

np.seterr(over="ignore")  # the inputs include 3e38 + 3e38 on purpose

from common import EXAMPLES, check, check_equal, finish, load_core, load_json, run, save, tmpdir, to_bf16

KERNEL = os.path.join(EXAMPLES, "tensor_add.py")
d = tmpdir()
rng = np.random.default_rng(1)
a = rng.standard_normal((256, 1024), dtype=np.float32)
b = rng.standard_normal((256, 1024), dtype=np.float32)
# Include values whose bf16 sum exercises ties and large magnitudes.
a[0, :4] = [1.0, 3.0e38, -0.0, 1.00390625]
b[0, :4] = [2.0 ** -8, 3.0e38, 0.0, 1.0]
pa, pb = save(d, "a.npy", a), save(d, "b.npy", b)

# fp32: exactly a + b.
out = os.path.join(d, "out32")
rc, so, se = run(KERNEL, "--inputs", pa, pb, "-o", out, "--stats", os.path.join(d, "s.json"),
                 "--trace", os.path.join(d, "t.json"))
check_equal(rc, 0, f"fp32 run exit code (stderr: {se})")
c = np.load(os.path.join(out, "output_0.npy"))
check_equal((c.dtype, c.shape), (np.dtype(np.float32), (256, 1024)), "fp32 output dtype/shape")
check(np.array_equal(c, a + b), "fp32 output equals a + b exactly")
check("tensor_add on trn2" in so and "vector" in so, f"summary printed: {so!r}")
check(not os.path.exists(os.path.join(out, "input_a_input.npy")), "inputs not written when unmodified")

# Stats JSON has the contract's fields.
s = load_core(os.path.join(d, "s.json"))
for key in ("target", "total_ns", "total_cycles", "instructions", "engines"):
    check(key in s, f"stats has {key}")
check_equal(s["target"], "trn2", "stats target")
check(s["total_ns"] > 0, "stats total_ns > 0")
for e in ("tensor", "vector", "scalar", "gpsimd", "sync", "dma"):
    check(e in s["engines"] and "busy_ns" in s["engines"][e] and "instructions" in s["engines"][e], f"stats engine {e}")
# 4 tiles: 4 tensor_tensor on Vector, 12 DMA transfers; on trn2 the 4 stores of what Vector computed are
# triggered by an engine with no compute work (Scalar), the 8 loads by Sync (dma_trigger_spread).
check_equal(s["engines"]["vector"]["instructions"], 4, "vector instructions (4 adds)")
check_equal((s["engines"]["scalar"]["instructions"], s["engines"]["sync"]["instructions"]), (4, 8),
            "store triggers on Scalar, load triggers on Sync")
check_equal(s["engines"]["dma"]["instructions"], 12, "DMA transfers")

# Trace JSON: complete events with the profiler's field names.
t = load_json(os.path.join(d, "t.json"))
ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
check(len(ev) > 0, "trace has complete events")
names = {e["name"] for e in ev}
check({"dma_copy", "tensor_tensor"} <= names, f"trace opcodes {names}")
cats = {e["cat"] for e in ev}
check({"vector", "dma"} <= cats, f"trace categories {cats}")
for e in ev:
    args = e.get("args", {})
    if not all(k in args for k in ("opcode", "operands", "duration_ns", "nki_source_location")):
        check(False, f"trace event args {e}")
        break
tt = [e for e in ev if e["name"] == "tensor_tensor"]
check(all(e["args"]["nki_source_location"].endswith("tensor_add.py:27") for e in tt),
      f"tensor_tensor source location {tt[0]['args']['nki_source_location'] if tt else None}")

# bf16: inputs rounded to bf16 by the CLI, added in fp32, rounded to bf16; written as float32.
out = os.path.join(d, "out16")
rc, so, se = run(KERNEL, "--inputs", pa + ":bfloat16", pb + ":bfloat16", "-o", out, "-q")
check_equal(rc, 0, f"bf16 run exit code (stderr: {se})")
check_equal(so, "", "-q prints nothing")
c16 = np.load(os.path.join(out, "output_0.npy"))
golden = to_bf16(to_bf16(a) + to_bf16(b))
check_equal(c16.dtype, np.dtype(np.float32), "bf16 output written as float32")
check(np.array_equal(c16, golden), f"bf16 output is the correctly rounded sum ({np.sum(c16 != golden)} differ)")
check(np.isinf(c16[0, 1]), "bf16 overflow of 3e38 + 3e38 gives inf")

# --raw-low-precision writes the raw bf16 bits.
out = os.path.join(d, "outraw")
rc, so, se = run(KERNEL, "--inputs", pa + ":bfloat16", pb + ":bfloat16", "-o", out, "-q", "--raw-low-precision")
craw = np.load(os.path.join(out, "output_0.npy"))
check_equal(craw.dtype, np.dtype(np.uint16), "raw bf16 output dtype")
check(np.array_equal((craw.astype(np.uint32) << 16).view(np.float32), golden), "raw bf16 bits")

# Same run twice: identical stats (determinism).
rc1, so1, _ = run(KERNEL, "--inputs", pa, pb, "-o", os.path.join(d, "o1"), "--stats", os.path.join(d, "s1.json"))
check(open(os.path.join(d, "s.json")).read() == open(os.path.join(d, "s1.json")).read(), "stats are deterministic")

# Running again into the same directory replaces what is there (an existing output is removed and written
# anew rather than truncated): a longer old file leaves nothing behind, a symlinked output is written
# through its link, a hard-linked output through both names; --stats over an old file likewise.
out = os.path.join(d, "again")
os.makedirs(out)
with open(os.path.join(out, "output_0.npy"), "wb") as f:
    f.write(b"x" * (3 << 20))  # longer than the real output
with open(os.path.join(d, "s2.json"), "w") as f:
    f.write("{" + " " * 100000 + "}")
rc, so, se = run(KERNEL, "--inputs", pa, pb, "-o", out, "-q", "--stats", os.path.join(d, "s2.json"))
check_equal(rc, 0, f"rerun exit code (stderr: {se})")
check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), a + b), "rerun replaces a longer old output")
check_equal(os.path.getsize(os.path.join(out, "output_0.npy")), 128 + a.nbytes, "rerun output size")
check(open(os.path.join(d, "s2.json")).read() == open(os.path.join(d, "s1.json")).read(), "rerun replaces old stats")
target = os.path.join(d, "elsewhere.npy")
open(target, "wb").close()
os.remove(os.path.join(out, "output_0.npy"))
os.symlink(target, os.path.join(out, "output_0.npy"))
rc, so, se = run(KERNEL, "--inputs", pa, pb, "-o", out, "-q")
check(os.path.islink(os.path.join(out, "output_0.npy")), "a symlinked output stays a symlink")
check(np.array_equal(np.load(target), a + b), "a symlinked output is written through the link")
os.remove(os.path.join(out, "output_0.npy"))
with open(target, "wb") as f:
    f.write(b"stale")
os.link(target, os.path.join(out, "output_0.npy"))
rc, so, se = run(KERNEL, "--inputs", pb, pa, "-o", out, "-q")
check_equal(os.stat(target).st_nlink, 2, "a hard-linked output keeps its links")
check(np.array_equal(np.load(target), b + a), "a hard-linked output is written through both names")
finish()
