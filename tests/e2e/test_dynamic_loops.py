"""End to end: dynamic loops and registers (tests/e2e/kernels/dynamic_loops.py, docs/dynamic-loops.md) against
numpy goldens, timed and functional; the trip count is read at run time, so one program serves every count;
steady-state iterations cost the same time; asm and binary round trips run the same; the loop budget."""
import os

import numpy as np

from common import SRC, check, check_equal, finish, load_json, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "dynamic_loops.py")
d = tmpdir()
rng = np.random.default_rng(7)
a = rng.standard_normal((128, 64), dtype=np.float32)
b = rng.standard_normal((128, 64), dtype=np.float32)
pa, pb = save(d, "a.npy", a), save(d, "b.npy", b)


def count(n):
    return save(d, f"n{n}.npy", np.array([[n]], dtype=np.int32))


def repeated(x, y, n):
    """x + y + y + ... (n times), one fp32 rounding per add, as the kernels compute it."""
    acc = x.copy()
    for _ in range(n):
        acc = (acc + y).astype(np.float32)
    return acc


def run_kernel(name, inputs, *extra, checked=True):
    out = os.path.join(d, f"{name}-{len(os.listdir(d))}")
    stats = os.path.join(d, f"{name}-{len(os.listdir(d))}.json")
    rc, so, se = run(K, "-k", name, "--inputs", *inputs, "-o", out, "--stats", stats, *extra, checked=checked)
    check_equal(rc, 0, f"{name} {inputs} {extra} exit code (stderr: {se})")
    res = np.load(os.path.join(out, "output_0.npy")) if rc == 0 else None
    return res, (load_json(stats) if rc == 0 and "--functional" not in extra else None)


# fori_loop with a run-time trip count: DMA (Sync), multiply (Scalar), add (Vector) in the body.
totals = {}
for n in (0, 1, 2, 3, 4, 7):
    for mode in ((), ("--functional",)):
        res, stats = run_kernel("fori_accumulate", [pa, pb, count(n)], *mode)
        check(res is not None and np.array_equal(res, repeated(a, b * np.float32(2), n)),
              f"fori_accumulate n={n} {mode} equals the numpy golden")
        if stats:
            totals[n] = stats["total_ns"]
# Steady state: every further iteration adds the same time.
step = totals[3] - totals[2]
check(step > 0, f"an iteration takes time ({step} ns)")
for n in (4, 7):
    check(abs((totals[n] - totals[2]) - (n - 2) * step) <= 1e-6 * totals[n],
          f"fori_accumulate time is linear in n: T({n}) - T(2) = {totals[n] - totals[2]} vs {(n - 2) * step}")
check(totals[1] > totals[0], "one iteration is slower than none")

# Zero trips with every timeline report: the body never issues, and the reports leave it out (it crashed).
reports = os.path.join(d, "zero-trip")
res, stats = run_kernel("fori_accumulate", [pa, pb, count(0)], "--trace", reports + ".trace.json", "--html",
                        reports + ".html", "--profile-json", reports + ".profile.json", "--profile")
check(res is not None and np.array_equal(res, repeated(a, b * np.float32(2), 0)), "zero trips with reports: output")
if res is not None:
    trace = load_json(reports + ".trace.json")
    names = {e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"}
    check("tensor_scalar" not in names and "tensor_tensor" not in names, f"zero trips: no body slice in the trace {names}")

# A negative count runs no iteration (the condition is checked first).
res, _ = run_kernel("fori_accumulate", [pa, pb, count(-3)])
check(res is not None and np.array_equal(res, a), "fori_accumulate n=-3 runs no iteration")

# while_loop counting down an SBUF counter re-loaded into the register every iteration.
for n in (0, 1, 5):
    for mode in ((), ("--functional",)):
        res, _ = run_kernel("while_countdown", [pa, count(n)], *mode)
        check(res is not None and np.array_equal(res, repeated(np.zeros_like(a), a, n)),
              f"while_countdown n={n} {mode} equals the numpy golden")

# Nested deprecated forms: for-in-dynamic_range around `while reg:` (3 inner iterations each). The rerun's racecheck
# holds the back end to ordering every engine's copy of `register_load(r, cnt)` before GpSimd's `cnt -= 1` and
# memset of the next iteration (ir/loops.cpp: the copies of a loop see the memory as it was before it).
for n in (0, 2, 3):
    res, _ = run_kernel("nested_legacy", [pa, count(n)])
    check(res is not None and np.array_equal(res, repeated(np.zeros_like(a), a, 3 * n)),
          f"nested_legacy n={n} equals the numpy golden")

# .ap(scalar_offset=i) with the loop register: one [128, N] tile per iteration, rows read at run time; the
# register is read when each DMA is triggered (the loop has moved on by the time the transfer lands).
ta = rng.standard_normal((512, 64), dtype=np.float32)
tb = rng.standard_normal((512, 64), dtype=np.float32)
pta, ptb = save(d, "ta.npy", ta), save(d, "tb.npy", tb)
for rows in (0, 128, 384, 512):
    for mode in ((), ("--functional",)):
        # rows < 512 leaves the rest of the output unwritten on purpose: --check would say so (docs/checks.md)
        res, _ = run_kernel("tiled_add", [pta, ptb, count(rows)], *mode, checked=rows == 512)
        ok = res is not None and np.array_equal(res[:rows], ta[:rows] + tb[:rows]) and np.isnan(res[rows:]).all()
        check(ok, f"tiled_add rows={rows} {mode}: the first rows are a + b, the rest never written")

# Registers: alloc with a value, move, load, store.
res, _ = run_kernel("register_roundtrip", [save(d, "x.npy", np.array([[-123456]], dtype=np.int32))])
check(res is not None and res.tolist() == [[7, 7, -5, -123456]], f"register_roundtrip: {res}")

# The program is the same for every count: asm and binary round trips run identically.
asm, binp = os.path.join(d, "p.s"), os.path.join(d, "p.nkibin")
rc, _, se = run(K, "-k", "fori_accumulate", "--inputs", pa, pb, count(3), "-o", os.path.join(d, "e"), "-q",
                "--emit", "asm", asm)
check_equal(rc, 0, f"emit asm ({se})")
text = open(asm).read()
check(text.count("tensor_tensor") == 1, "the loop body is emitted once, not unrolled")
check("branch op0=greater_equal" in text and "sem_wait_reg" in text, "loop head and register-relative waits")
rc, _, se = run(K, "-k", "fori_accumulate", "--inputs", pa, pb, count(3), "-o", os.path.join(d, "e2"), "-q",
                "--emit", "bin", binp)
check_equal(rc, 0, f"emit bin ({se})")
for n in (3, 6):
    out = os.path.join(d, f"prog{n}")
    rc, _, se = run("--program", binp, "--inputs", pa, pb, count(n), "-o", out, "-q")
    check_equal(rc, 0, f"--program run n={n} ({se})")
    if rc == 0:
        check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), repeated(a, b * np.float32(2), n)),
              f"the binary program computes n={n} from its input")

# The run-time budget turns an over-long loop into a located error (exit 1), never a hang.
rc, so, se = run(K, "-k", "fori_accumulate", "--inputs", pa, pb, count(50), "-o", os.path.join(d, "budget"),
                 "--max-loop-iterations", "20")
check_equal(rc, 1, "budget exceeded: exit code 1")
check("dynamic_loops.py:26:5: error: dynamic loop: the" in se and "took more than 20 branches" in se,
      f"budget error message: {se!r}")

finish()
