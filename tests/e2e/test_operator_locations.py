"""End-to-end: instructions made by Python operators carry their kernel source line (issue 13 item 25): `t * 2.0 + t`,
`-t`, `acc += nl.matmul(...)`, `x[...] = v` and a legacy `a + b`, inside a helper too. --profile lists them by line
(no `?`), the trace's nki_source_location names the line, --explain=LINE selects them, and numbers match numpy."""
import os

import numpy as np

from common import LEGACY_HEADER, check, check_equal, finish, load_json, run, save, tmpdir, write_file

d = tmpdir()
CURRENT = '''import nki
import nki.isa as nisa
import nki.language as nl


def scale_add(t):
    return t * 2.0 + t


@nki.jit
def ops(a):
    out = nl.ndarray((128, 128), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    u = scale_add(t)
    acc = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
    acc += nl.matmul(t, u, transpose_x=True)
    r = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    r[...] = -acc
    nisa.dma_copy(dst=out, src=r)
    return out
'''
LEGACY = LEGACY_HEADER + '''@nki.jit
def legacy_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    z = x + y
    nl.store(out, value=z)
    return out
'''
rng = np.random.default_rng(3)
a = rng.standard_normal((128, 128)).astype(np.float32)
pa = save(d, "a.npy", a)
k = write_file(d, "ops.py", CURRENT)
prof = os.path.join(d, "prof.txt")
trace = os.path.join(d, "trace.json")
rc, so, se = run(k, "--inputs", pa, "-o", os.path.join(d, "o"), "-q", f"--profile={prof}", "--trace", trace)
check_equal(rc, 0, f"current-API operators run ({se})")
if rc == 0:
    y = np.load(os.path.join(d, "o", "output_0.npy"))
    check(np.allclose(y, -(a.T @ (3 * a)), rtol=1e-4, atol=1e-3), "t * 2.0 + t, += matmul, -acc: numbers")
    p = open(prof).read()
    section = p[p.index("Time per source line"):p.index("Time per opcode")]
    check(" ?" not in section, f"--profile: no instruction without a source line\n{section}")
    for line, what in ((7, "t * 2.0 + t (in a helper)"), (17, "acc += nl.matmul"), (19, "r[...] = -acc")):
        check(f"ops.py:{line} " in section, f"--profile lists line {line}: {what}")
    events = [e for e in load_json(trace)["traceEvents"] if e.get("ph") == "X" and "opcode" in e.get("args", {})]
    check(events and all(e["args"]["nki_source_location"] for e in events), "every trace event has a source location")
    by_line = {}
    for e in events:
        by_line.setdefault(e["args"]["nki_source_location"].rpartition(":")[2], set()).add(e["args"]["opcode"])
    check({"tensor_scalar", "tensor_tensor"} <= by_line.get("7", set()), f"line 7: the multiply and the add {by_line}")
    check("multiply_moving" in by_line.get("17", set()), f"line 17: the matmul {by_line}")
rc, so, se = run(k, "--inputs", pa, "-o", os.path.join(d, "e"), "-q", "--explain=7")
check(rc == 0 and so.count("formula:") == 2, f"--explain=7 selects the two operator instructions ({so.count('formula:')})")

lk = write_file(d, "legacy_add.py", LEGACY)
b = rng.standard_normal((128, 64)).astype(np.float32)
a2 = rng.standard_normal((128, 64)).astype(np.float32)
rc, so, se = run(lk, "--inputs", save(d, "a2.npy", a2), save(d, "b2.npy", b), "-o", os.path.join(d, "l"), "-q",
                 "--explain=11")
check(rc == 0 and so.count("formula:") == 1 and "tensor_tensor" in so, f"legacy a + b: --explain=11 selects it ({se})")
if rc == 0:
    check(np.array_equal(np.load(os.path.join(d, "l", "output_0.npy")), a2 + b), "legacy a + b: numbers")
finish()
