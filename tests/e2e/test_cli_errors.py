"""Bad input gets one clear message and exit 1 (2 for a bad command line); never a crash."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, run, save, tmpdir

ADD = os.path.join(EXAMPLES, "tensor_add.py")
d = tmpdir()
a = save(d, "a.npy", np.ones((256, 1024), np.float32))
b = save(d, "b.npy", np.ones((256, 1024), np.float32))


def write(name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def expect(args, code, stderr, what):
    rc, so, se = run(*args, "-o", os.path.join(d, "out"))
    check_equal(rc, code, f"{what}: exit code (stderr: {se!r})")
    check_equal(se, stderr, f"{what}: message")


# Command-line errors: exit 2 with usage.
rc, so, se = run("--bogus-flag")
check_equal(rc, 2, "unknown option exits 2")
check(se.startswith("nki-sim: error: unrecognised option '--bogus-flag'\nusage: nki-sim KERNEL.py"), f"unknown option message {se!r}")
rc, so, se = run()
check_equal((rc, se.splitlines()[0]), (2, "nki-sim: error: no kernel file given"), "no kernel file")
rc, so, se = run(ADD, "--target", "trn9")
check_equal((rc, se.splitlines()[0]), (2, "nki-sim: error: unknown target 'trn9' (expected trn1, trn2 or trn3)"), "bad target")
rc, so, se = run(ADD, "--inputs", a + ":bfloat17")
check_equal((rc, se.splitlines()[0]), (2, f"nki-sim: error: --inputs {a}:bfloat17: unknown dtype 'bfloat17'"), "bad dtype suffix")
rc, so, se = run(ADD, "--param", "min_ii_cycles=abc")
check_equal((rc, se.splitlines()[0]), (2, "nki-sim: error: --param min_ii_cycles: 'abc' is not a number"), "bad param value")
rc, so, se = run(ADD, "--emit", "elf", "x")
check_equal((rc, se.splitlines()[0]), (2, "nki-sim: error: --emit expects 'ir FILE', 'asm FILE' or 'bin FILE'"), "bad --emit")
rc, so, se = run("--help")
check(rc == 0 and "--inputs" in so and "--trace" in so, "--help prints the options")
check_equal(so.splitlines()[-3:], [
    "Exit status: 0 on success, 1 for a kernel, input or run-time error, 2 for a bad command line.",
    "Environment: NKISIM_THREADS=N caps the threads the simulator uses (results never depend on it);",
    "NKISIM_HUGEPAGES=1|auto uses transparent huge pages for the simulated memories (default off)."],
    "--help ends with the exit status and the environment variables")

# Input files.
missing = os.path.join(d, "missing.npy")
expect([ADD, "--inputs", missing, b], 1, f"nki-sim: error: {missing}: cannot open: No such file or directory\n", "missing input")
expect([ADD, "--inputs", d, b], 1, f"nki-sim: error: {d}: cannot open: Is a directory\n", "directory as input")
bad_magic = write("bad_magic.npy", b"PK\x03\x04 not numpy at all")
expect([ADD, "--inputs", bad_magic, b], 1, f"nki-sim: error: {bad_magic}: not an .npy file (bad magic)\n", "bad magic")
empty = write("empty.npy", b"")
expect([ADD, "--inputs", empty, b], 1, f"nki-sim: error: {empty}: not an .npy file (file is empty)\n", "empty file")
with open(a, "rb") as f:
    good = f.read()
trunc = write("trunc.npy", good[:1000])
expect([ADD, "--inputs", trunc, b], 1,
       f"nki-sim: error: {trunc}: truncated data: expected 1048576 bytes, found {1000 - 128}\n", "truncated data")
trunc_hdr = write("trunc_hdr.npy", good[:40])
rc, so, se = run(ADD, "--inputs", trunc_hdr, b)
check(rc == 1 and se.startswith(f"nki-sim: error: {trunc_hdr}: ") and "header" in se and se.count("\n") == 1,
      f"truncated header: {rc} {se!r}")
garbage = write("garbage.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 12}  \n")
rc, so, se = run(ADD, "--inputs", garbage, b)
check(rc == 1 and se.startswith(f"nki-sim: error: {garbage}: malformed header") and se.count("\n") == 1,
      f"malformed header: {rc} {se!r}")
c8 = save(d, "c8.npy", np.ones((4,), np.complex64))
expect([ADD, "--inputs", c8, b], 1, f"nki-sim: error: {c8}: unsupported dtype '<c8'\n", "complex dtype")
f64 = save(d, "f64.npy", np.ones((256, 1024)))
rc, so, se = run(ADD, "--inputs", f64, b)
check(rc == 1 and se.startswith(f"nki-sim: error: {f64}: dtype float64 is not an NKI dtype"), f"float64 input: {se!r}")
# ...but FILE:float32 converts it.
rc, so, se = run(ADD, "--inputs", f64 + ":float32", b, "-q", "-o", os.path.join(d, "o64"))
check_equal(rc, 0, f"float64 input with :float32 ({se!r})")

# Kernel errors: located, with the source line and a caret.
expect([ADD, "--inputs", a], 1,
       f"{ADD}:11:1: error: kernel 'tensor_add' takes 2 tensor inputs (a_input, b_input) but 1 was given\n"
       "   11 | def tensor_add(a_input, b_input):\n"
       "      | ^\n", "wrong number of inputs")
small = save(d, "small.npy", np.ones((100, 1024), np.float32))
expect([ADD, "--inputs", small, small], 1,
       f"{ADD}:15:5: error: assertion failed: shape (100, 1024) does not tile by (128, 512)\n"
       "   15 |     assert M % TILE_P == 0 and N % TILE_F == 0, f\"shape {a_input.shape} does not tile by ({TILE_P}, {TILE_F})\"\n"
       "      |     ^\n", "shape failing a kernel assert")
syn = write("syn.py", b"import nki\n@nki.jit\ndef k(a):\n    x = (1 +\n")
expect([syn, "--inputs", a], 1, f"{syn}:4:9: error: '(' was never closed\n    4 |     x = (1 +\n      |         ^\n",
       "syntax error")
nope = os.path.join(d, "nope.py")
rc, so, se = run(nope)
check_equal((rc, se), (1, f"{nope}: error: cannot read kernel file: No such file or directory\n"), "missing kernel file")
binary = write("binary.py", bytes(range(256)) * 8)
rc, so, se = run(binary)
check(rc == 1 and se.startswith(f"{binary}:1:") and "error:" in se, f"binary kernel file: {rc} {se[:80]!r}")
trunc_py = write("trunc.py", open(ADD, "rb").read()[:700])
rc, so, se = run(trunc_py, "--inputs", a, b)
check(rc == 1 and se.startswith(f"{trunc_py}:") and "error:" in se, f"truncated kernel file: {rc} {se[:120]!r}")
expect([ADD, "-k", "foo", "--inputs", a, b], 1,
       f"{ADD}: error: no kernel function named 'foo' in file (@nki.jit kernels: tensor_add)\n", "unknown -k")
expect([ADD, "--arg", "foo=1", "--inputs", a, b], 1,
       "nki-sim: error: --arg foo: kernel 'tensor_add' has no parameter 'foo' (parameters: a_input, b_input)\n",
       "unknown --arg")
two = write("two.py", b"import nki\n@nki.jit\ndef k1(a):\n    return a\n@nki.jit\ndef k2(a):\n    return a\n")
rc, so, se = run(two, "--inputs", a)
check(rc == 1 and "k1" in se and "k2" in se and "-k" in se, f"several kernels listed: {se!r}")
# Compile-time budgets are located errors that name the flag raising them.
loop = write("loop.py", b"import nki\nimport nki.language as nl\nimport nki.isa as nisa\n@nki.jit\ndef k(a):\n"
                        b"    t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)\n    for i in range(100):\n"
                        b"        nisa.memset(dst=t, value=0.0)\n    return a\n")
rc, so, se = run(loop, "--inputs", a, "--max-instructions", "10")
check(rc == 1 and se.startswith(f"{loop}:8:9: error: instruction budget exceeded") and "--max-instructions" in se,
      f"instruction budget: {rc} {se!r}")
rc, so, se = run(loop, "--inputs", a, "--max-steps", "50")
check(rc == 1 and se.startswith(f"{loop}:7:5: error: evaluation step budget exceeded") and "--max-steps" in se,
      f"step budget: {rc} {se!r}")
deep = write("deep.py", b"import nki\n\ndef down(n):\n    return 0 if n == 0 else down(n - 1)\n\n@nki.jit\n"
                        b"def k(a):\n    down(50)\n    return a\n")
rc, so, se = run(deep, "--inputs", a, "--max-recursion", "20", "-q")
check(rc == 1 and se.startswith(f"{deep}:") and "recursion" in se and "--max-recursion" in se, f"recursion limit: {rc} {se!r}")
rc, so, se = run(deep, "--inputs", a, "--max-recursion", "100", "-q", "-o", os.path.join(d, "odeep"))
check_equal(rc, 0, f"--max-recursion 100 lets 50-deep recursion through ({se!r})")
rc, so, se = run(loop, "--inputs", a, "--max-recursion", "0")
check_equal((rc, se.splitlines()[0]), (2, "nki-sim: error: --max-recursion must be at least 1"), "--max-recursion 0")
rc, so, se = run(loop, "--inputs", a, "--max-steps", "abc")
check_equal(rc, 2, "--max-steps abc is a bad command line")
finish()
