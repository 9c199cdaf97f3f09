"""End-to-end: `nki-sim compare` (documents and kernel runs; exact text and JSON) and what-if sweeps
(--target all, --sweep over target parameters and kernel arguments, text / CSV / JSON tables, error rows and
usage errors); docs/profile.md."""
import json
import os

import numpy as np

from common import check, check_equal, finish, load_core, run, save, tmpdir

HEADER = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n"
COPY = HEADER + """@nki.jit
def copy_through(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=out, src=t)
    return out
"""
SCALE = HEADER + """@nki.jit
def scale_many(a, reps=2):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    for i in range(reps):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=out, src=t)
    return out
"""

d = tmpdir()


def write(name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


copy_py, scale_py = write("copy.py", COPY), write("scale.py", SCALE)
x = save(d, "x.npy", np.ones((128, 128), np.float32))

# ---- compare two --stats documents: exact text.
a = write("a.json", json.dumps({"target": "trn2", "total_ns": 2000.0, "instructions": 10, "engines": {
    "tensor": {"busy_ns": 1000.0}, "vector": {"busy_ns": 500.0}, "dma": {"busy_ns": 0.0}}}))
b = write("b.json", json.dumps({"target": "trn2", "total_ns": 1500.0, "instructions": 12, "engines": {
    "tensor": {"busy_ns": 250.0}, "vector": {"busy_ns": 600.0}, "dma": {"busy_ns": 100.0}}}))
rc, so, se = run("compare", a, b)
check_equal(rc, 0, f"compare stats: {se}")
expected = f"""Compare: A = {a} (stats, trn2); B = {b} (stats, trn2)
                                          A            B        B - A    B / A
  end time (us)                       2.000        1.500       -0.500    0.750
  instructions                           10           12           +2    1.200

Engines (busy us):
  engine                                  A            B        B - A    B / A
  tensor                              1.000        0.250       -0.750    0.250
  vector                              0.500        0.600       +0.100    1.200
  dma                                 0.000        0.100       +0.100        -

(opcodes and source lines: compare two --profile-json documents)
"""
check_equal(so, expected, "compare two stats documents")

# ---- two profile documents of different single-file kernels: opcodes and lines by line number.
def prof(total, verdict, engine, opcodes, lines):
    return json.dumps({"schema": "nki-sim-profile/1", "target": "trn1", "total_ns": total, "instructions": 3,
                       "verdict": {"kind": verdict, "engine": engine},
                       "engines": {"tensor": {"busy_ns": 0.0}, "vector": {"busy_ns": total / 2}},
                       "lines": [{"line": k, "count": c, "busy_ns": ns} for k, c, ns in lines],
                       "opcodes": [{"opcode": k, "count": c, "busy_ns": ns} for k, c, ns in opcodes]})


pa = write("pa.json", prof(4000.0, "engine-bound", "vector", [("tensor_scalar", 2, 3000.0), ("dma_copy", 2, 100.0)],
                           [("k1.py:12", 2, 3000.0), ("k1.py:10", 2, 100.0)]))
pb = write("pb.json", prof(3000.0, "dma-latency-bound", "", [("tensor_scalar", 1, 1500.0), ("dma_copy", 2, 100.0),
                                                            ("memset", 1, 50.0)],
                           [("k2.py:12", 1, 1500.0), ("k2.py:10", 2, 100.0), ("k2.py:9", 1, 50.0)]))
rc, so, se = run("compare", pa, pb)
expected = f"""Compare: A = {pa} (profile, trn1); B = {pb} (profile, trn1)
                                          A            B        B - A    B / A
  end time (us)                       4.000        3.000       -1.000    0.750
  instructions                            3            3           +0    1.000
  verdict: A engine-bound (vector); B dma-latency-bound

Engines (busy us):
  engine                                  A            B        B - A    B / A
  tensor                              0.000        0.000       +0.000        -
  vector                              2.000        1.500       -0.500    0.750

Opcodes (busy us, largest change first; DMA transfers: data start to completion):
  opcode                                  A            B        B - A    B / A  count A -> B
  tensor_scalar                       3.000        1.500       -1.500    0.500  2 -> 1
  memset                              0.000        0.050       +0.050        -  0 -> 1
  dma_copy                            0.100        0.100       +0.000    1.000  2 -> 2

Source lines (busy us, largest change first; DMA transfers: data start to completion):
  source line                             A            B        B - A    B / A  count A -> B
  line 12                             3.000        1.500       -1.500    0.500  2 -> 1
  line 9                              0.000        0.050       +0.050        -  0 -> 1
  line 10                             0.100        0.100       +0.000    1.000  2 -> 2
"""
check(rc == 0 and so == expected, f"compare two profiles:\n{so}\n{se}")
rc, so, se = run("compare", pa, pb, "--json")
j = json.loads(so) if rc == 0 else {}
check_equal(j.get("schema"), "nki-sim-compare/1", "compare --json schema")
check_equal(j.get("total_ns"), {"a": 4000.0, "b": 3000.0, "delta": -1000.0, "ratio": 0.75}, "compare --json end time")
check_equal(j.get("opcodes", [None])[1], {"opcode": "memset", "a_count": 0.0, "b_count": 1.0, "a": 0.0, "b": 50.0,
                                         "delta": 50.0, "ratio": None}, "compare --json: a new opcode")
check_equal([r["line"] for r in j.get("lines", [])], ["line 12", "line 9", "line 10"], "compare --json lines")
check_equal(j.get("b", {}).get("verdict"), "dma-latency-bound", "compare --json verdict")

# ---- compare two kernel runs: the same numbers as their own --profile-json.
def profile(path, *args):
    out = os.path.join(d, f"p{len(os.listdir(d))}.json")
    rc, so, se = run(path, "--inputs", x, "-q", "-o", os.path.join(d, "o"), "--profile-json", out, *args)
    check_equal(rc, 0, f"{path} {args}: {se}")
    return load_core(out, "nki-sim-profile/2")


pc, ps = profile(copy_py, "--target", "trn1"), profile(scale_py, "--target", "trn1")
rc, so, se = run("compare", copy_py, scale_py, "--inputs", x, "--target", "trn1", "--json")
check_equal(rc, 0, f"compare two kernels: {se}")
j = json.loads(so) if rc == 0 else {}
check_equal(j.get("total_ns", {}).get("a"), pc["total_ns"], "compare kernels: A's end time")
check_equal(j.get("total_ns", {}).get("b"), ps["total_ns"], "compare kernels: B's end time")
check_equal(j.get("a", {}).get("label"), copy_py, "compare kernels: A's label")
lines = {r["line"]: r for r in j.get("lines", [])}
check(lines.get("line 12", {}).get("b_count") == 2 and lines.get("line 12", {}).get("a_count") == 0,
      f"compare kernels: scale.py:12 (2 adds) against nothing in copy.py: {lines.get('line 12')}")
rc, so, se = run("compare", copy_py, scale_py, "--inputs", x, "--target", "trn1")
check(rc == 0 and so.startswith(f"Compare: A = {copy_py} (profile, trn1); B = {scale_py} (profile, trn1)\n"),
      f"compare kernels text: {so[:200]}")
binp = os.path.join(d, "scale.nkibin")
rc, so, se = run(scale_py, "--inputs", x, "--target", "trn1", "-q", "-o", os.path.join(d, "o"), "--emit", "bin", binp)
rc, so, se = run("compare", binp, scale_py, "--inputs", x, "--target", "trn1", "--json")
j = json.loads(so) if rc == 0 else {}
check(rc == 0 and j["total_ns"]["a"] == j["total_ns"]["b"] == ps["total_ns"], f"compare a program with its kernel: {se}")
rc, so, se = run("compare", a)
check(rc == 2 and "compare expects two operands" in se, f"compare with one operand: {rc} {se}")
rc, so, se = run("compare", a, write("bad.json", "{not json"))
check(rc == 1 and "bad.json: not JSON" in se, f"compare a bad document: {rc} {se}")
rc, so, se = run("compare", a, write("other.json", "[1, 2]"))
check(rc == 1 and "not an nki-sim stats or profile document" in se, f"compare another JSON: {rc} {se}")

# ---- --target all: one row per target, each the end time of that target's own run.
rc, so, se = run(copy_py, "--inputs", x, "--target", "all", "--sweep-format", "json")
check_equal(rc, 0, f"--target all: {se}")
rows = json.loads(so)["rows"] if rc == 0 else []
check_equal([r["target"] for r in rows], ["trn1", "trn2", "trn3"], "--target all rows")
for r in rows:
    p = profile(copy_py, "--target", r["target"])
    check_equal(r["end_ns"], p["total_ns"], f"--target all: {r['target']} end time")
    check_equal(r["verdict"], p["verdict"]["kind"], f"--target all: {r['target']} verdict")
rc, so, se = run(copy_py, "--inputs", x, "--target", "all")
lines = so.splitlines()
check(rc == 0 and len(lines) == 4 and lines[0].split()[:3] == ["target", "end_us", "verdict"] and
      [l.split()[0] for l in lines[1:]] == ["trn1", "trn2", "trn3"], f"--target all text table:\n{so}")

# ---- a grid over a kernel argument and a target parameter: CSV in grid order, exact numbers.
rc, so, se = run(scale_py, "--inputs", x, "--target", "trn1", "--sweep", "reps=1,3", "--sweep", "dma_fixed_ns=0,1300",
                 "--sweep-format", "csv")
check_equal(rc, 0, f"grid sweep: {se}")
lines = so.splitlines()
check_equal(lines[0], "target,reps,dma_fixed_ns,end_us,verdict,tensor_active_pct,vector_active_pct,"
                      "scalar_active_pct,gpsimd_active_pct,sync_active_pct,dma_active_pct,dma_bytes_per_ns,mfu_pct",
            "CSV header")
check_equal([tuple(l.split(",")[:3]) for l in lines[1:]],
            [("trn1", "1", "0"), ("trn1", "1", "1300"), ("trn1", "3", "0"), ("trn1", "3", "1300")], "grid order")
ends = [float(l.split(",")[3]) for l in lines[1:]]
check(abs((ends[1] - ends[0]) - 2.6) < 0.0015 and abs((ends[3] - ends[2]) - 2.6) < 0.0015,
      f"dma_fixed_ns 0 -> 1300 adds 2 x 1.3 us (both transfers on the path): {ends}")
p = profile(scale_py, "--target", "trn1", "--arg", "reps=3", "--param", "dma_fixed_ns=1300")
check_equal(lines[4].split(",")[3], "%.3f" % (p["total_ns"] / 1000), "grid point = its own run")
check_equal(lines[4].split(",")[4], p["verdict"]["kind"], "grid point verdict")

# ---- a failing point: its error row, exit 1, the other points still run.
rc, so, se = run(scale_py, "--inputs", x, "--sweep", "reps=1,x,2", "--sweep-format", "csv")
rows = so.splitlines()[1:]
check(rc == 1 and len(rows) == 3 and rows[1].startswith("trn2,x,error,") and "--arg reps: 'x' is not a Python literal" in
      rows[1] and "is not a Python literal" in se and rows[2].startswith("trn2,2,"), f"error row: {rc}\n{so}\n{se}")

# ---- usage errors (exit 2).
for args, msg in [(["--sweep", "reps"], "--sweep expects NAME=V1,V2,..., got 'reps'"),
                  (["--sweep", "target=trn9"], "unknown target 'trn9'"),
                  (["--sweep", "dma_fixed_ns=-5"], "'dma_fixed_ns' must be a number from 0"),
                  (["--sweep", "dma_fixed_ns=abc"], "'abc' is not a number"),
                  (["--target", "all", "--sweep", "target=trn1"], "swept twice"),
                  (["--sweep", "reps=1,,2"], "an empty value"),
                  (["--target", "all", "--sweep-format", "xml"], "expected text, csv or json, got 'xml'"),
                  (["--target", "all", "--profile"], "--profile does not combine with a sweep"),
                  (["--target", "all", "--functional"], "--functional does not combine with a sweep")]:
    rc, so, se = run(scale_py, "--inputs", x, *args)
    check(rc == 2 and msg in se and so == "", f"{args}: exit {rc}, {se!r}")

finish()
