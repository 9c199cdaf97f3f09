"""Budgets (issue 15): compile-time memory (strings, lists and dicts that double or grow without end), HBM
tensors past the target's capacity, a long dynamic loop over a big tile, run-time errors of programs without
.loc. Each ends quickly, under a memory cap, with exit 1 and a located message naming the flag that raises
the budget, and leaves no output."""
import os
import resource
import subprocess
import time

import numpy as np

from common import NKISIM, check, check_equal, finish, save, tmpdir, write_file

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
d = tmpdir()
HEADER = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n@nki.jit\ndef k(a, b):\n"
x = save(d, "x.npy", np.ones((128, 512), np.float32))


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def sim(*args, timeout=240):
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(TOOLS, "nki-sim"), *map(str, args)], capture_output=True, text=True,
                       timeout=timeout, preexec_fn=limit_memory)
    return p.returncode, p.stderr, time.monotonic() - t0


def kernel(name, body):
    return write_file(d, name + ".py", HEADER + body)


MEM = "(raise the limit with --max-compile-memory N)"
# Compile-time memory: each case stops at the line that would exceed the budget, long before the machine runs
# out (the subprocess has 4 GiB of address space; the default budget is 1 GiB).
for name, body, line_col in [
    ("str_double", "    s = 'x' * 10**5\n    for i in range(25):\n        s = s + s\n    return a\n", "10:13"),
    ("list_double", "    s = [0] * 1000\n    for i in range(40):\n        s = s + s\n    return a\n", "10:13"),
    ("list_extend", "    s = [0] * 1000\n    for i in range(40):\n        s.extend(s)\n    return a\n", "10:9"),
    ("list_iadd", "    s = [0] * 1000\n    for i in range(40):\n        s += s\n    return a\n", "10:9"),
    ("center", "    s = 'ab'.center(10**10)\n    return a\n", "8:9"),
    ("replace", "    s = ('a' * 10**6).replace('a', 'b' * 10**4)\n    return a\n", "8:10"),
    ("join", "    s = ('x' * 10**6 + ',') * 1000\n    t = s.join([s] * 1000)\n    return a\n", "9:9"),
    ("list_mul", "    s = [0] * 10**9\n    return a\n", "8:9"),
    ("range_list", "    s = list(range(10**9))\n    return a\n", "8:9"),
    ("strings", "    s = []\n    for i in range(10**8):\n        s.append(str(i) * 100)\n    return a\n", "10:18"),
]:
    path = kernel(name, body)
    out = os.path.join(d, "out_" + name)
    rc, se, secs = sim(path, "--inputs", x, x, "-o", out)
    first = (se.splitlines() or [""])[0]
    check(rc == 1 and first.startswith(f"{path}:{line_col}: error: compile-time memory budget exceeded")
          and first.endswith(MEM), f"{name}: located budget error (rc {rc}): {first!r}")
    check(not os.path.exists(out), f"{name}: no output")
# A 10**8-entry dict (here under a 50 MB budget, which it reaches after ~1M entries; the default 1 GiB takes
# ~15M entries, some 15 s of CPU).
path = kernel("dict", "    d = {i: i for i in range(10**8)}\n    return a\n")
rc, se, _ = sim(path, "--inputs", x, x, "-o", os.path.join(d, "out_dict"), "--max-compile-memory", "50000000")
first = (se.splitlines() or [""])[0]
check(rc == 1 and first.startswith(f"{path}:8:9: error: compile-time memory budget exceeded") and first.endswith(MEM),
      f"dict: located budget error (rc {rc}): {first!r}")
# 10**7 memsets: the default instruction budget (2,000,000, about 2 KB each) stops them within the memory cap.
path = kernel("memsets", "    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
                         "    for i in range(10**7):\n        nisa.memset(dst=t, value=0.0)\n    return a\n")
rc, se, secs = sim(path, "--inputs", x, x, "-o", os.path.join(d, "out_memsets"))
check_equal((rc, (se.splitlines() or [""])[0]),
            (1, f"{path}:10:9: error: instruction budget exceeded: the kernel emits more than 2000000 instructions "
                "(raise the limit with --max-instructions N)"), "10**7 memsets")
# A smaller budget stops a smaller kernel, and raising it lets the kernel compile.
path = kernel("small", "    s = 'x' * 10**6\n    return a\n")
rc, se, _ = sim(path, "--inputs", x, x, "-o", os.path.join(d, "o_small"), "--max-compile-memory", "100000", "-q")
check(rc == 1 and f"{path}:8:9: error: compile-time memory budget exceeded" in se and MEM in se,
      f"--max-compile-memory 100000 stops 'x' * 10**6: {se!r}")
rc, se, _ = sim(path, "--inputs", x, x, "-o", os.path.join(d, "o_small"), "--max-compile-memory", "10000000", "-q")
check_equal((rc, se), (0, ""), "--max-compile-memory 10000000 lets it compile")

# HBM tensors past the target's capacity: located at the nl.ndarray, naming the parameter that raises it.
CAP = "(--param hbm_capacity_bytes=N raises it)"
for name, shape, msg in [
    ("hbm_big", "(128, 10**9)", "a (128, 1000000000) float32 tensor takes 512000000000 bytes, more than the trn2 HBM "
                                "capacity of 25769803776 bytes"),
    ("hbm_wrap", "(2**62, 2**62)", "a (4611686018427387904, 4611686018427387904) float32 tensor takes more than 2^64 "
                                   "bytes, more than the trn2 HBM capacity of 25769803776 bytes"),
]:
    path = kernel(name, f"    t = nl.ndarray({shape}, dtype=nl.float32, buffer=nl.shared_hbm)\n    return t\n")
    rc, se, _ = sim(path, "--inputs", x, x, "-o", os.path.join(d, "out_" + name))
    check_equal((rc, (se.splitlines() or [""])[0]), (1, f"{path}:8:9: error: ndarray: {msg} {CAP}"), name)
path = kernel("hbm_sum", "    for i in range(20):\n        t = nl.ndarray((128, 2**20), dtype=nl.float32, "
                         "buffer=nl.hbm)\n    return a\n")
rc, se, _ = sim(path, "--inputs", x, x, "-o", os.path.join(d, "out_sum"), "--param", "hbm_capacity_bytes=2147483648")
check_equal((rc, (se.splitlines() or [""])[0]),
            (1, f"{path}:9:13: error: ndarray: the kernel's HBM tensors take 2684354560 bytes with this one, more "
                f"than the trn2 HBM capacity of 2147483648 bytes {CAP}"), "HBM tensors together past the capacity")

# A dynamic loop of 999,999 iterations over a (128, 57344) bf16 tile: the run-time budget stops it at the loop
# body's line and names --max-run-elements.
loop = kernel("long_loop",
              "    out = nl.ndarray((128, 57344), dtype=nl.bfloat16, buffer=nl.shared_hbm)\n"
              "    t = nl.ndarray((128, 57344), dtype=nl.bfloat16, buffer=nl.sbuf)\n"
              "    nisa.memset(dst=t, value=1.0)\n"
              "    n = nisa.register_alloc()\n"
              "    nisa.register_load(n, b)\n"
              "\n"
              "    def body(i):\n"
              "        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)\n"
              "\n"
              "    nl.fori_loop(0, n, body)\n"
              "    nisa.dma_copy(dst=out, src=t)\n"
              "    return out\n")
count = save(d, "count.npy", np.full((1, 1), 999999, np.int32))
# (The default, 2*10^11, stops this loop after ~27,000 iterations: about 45 s unloaded, too long for ctest.)
for extra, budget in [(("--max-run-elements", "100000000"), "100000000"), (("--max-run-elements", "2000000000"),
                                                                          "2000000000")]:
    out = os.path.join(d, "out_loop")
    rc, se, secs = sim(loop, "--inputs", x, count, "-o", out, "--functional", *extra, timeout=240)
    check_equal((rc, (se.splitlines() or [""])[0]),
                (1, f"{loop}:15:9: error: run-time budget: the program executed more than {budget} element operations "
                    "(raise the limit with --max-run-elements)"), f"long dynamic loop {extra}")
    check(not os.path.exists(out), f"long dynamic loop {extra}: no output")
    print(f"long dynamic loop {extra}: stopped after {secs:.1f} s")

# The budget counts what instructions move: 64 one-element gathers (scalar_offset DMAs, as nki-library's
# cross_entropy_forward loads each position's target logit) from a 4 Mi-element table are 64 elements, not 64
# tables (the DMA's base operand is only tracked), so a 10^6 budget holds.
gather = kernel("gather",
                "    out = nl.ndarray((64, 1), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                "    idx = nl.ndarray((64, 1), dtype=nl.int32, buffer=nl.sbuf)\n"
                "    nisa.dma_copy(dst=idx, src=b)\n"
                "    g = nl.ndarray((64, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
                "    for p in range(64):\n"
                "        nisa.dma_copy(dst=g[p:p + 1, :], src=a.ap(pattern=[[4096, 1], [1, 1]], offset=p * 4096,\n"
                "                      scalar_offset=idx.ap(pattern=[[1, 1], [1, 1]], offset=p), indirect_dim=1))\n"
                "    nisa.dma_copy(dst=out, src=g)\n"
                "    return out\n")
table = np.arange(1024 * 4096, dtype=np.float32).reshape(1024, 4096)
cols = np.arange(64, dtype=np.int32).reshape(64, 1) * 7 % 4096
gout = os.path.join(d, "out_gather")
rc, se, secs = sim(gather, "--inputs", save(d, "table.npy", table), save(d, "cols.npy", cols), "-o", gout,
                   "--max-run-elements", "1000000", "-q")
check_equal((rc, se), (0, ""), "one-element gathers from a large table within a small run-time budget")
if rc == 0:
    check(np.array_equal(np.load(os.path.join(gout, "output_0.npy"))[:, 0], table[np.arange(64), cols[:, 0]]),
          "the gathered elements")

# A run-time error of a program without .loc names the program file, the engine, the instruction's index and
# opcode (here a wait on a semaphore nothing signals).
src = write_file(d, "deadlock.s", ".target trn2\n.kernel k\n.semaphores 1\n.stream vector\n"
                                  "  memset dst=sbuf:float32@p0:128+0x0[[1,512]] wait=s0>=1\n")
prog = os.path.join(d, "deadlock.nkibin")
p = subprocess.run([os.path.join(TOOLS, "nki-as"), src, "-o", prog], capture_output=True, text=True, timeout=60)
check_equal((p.returncode, p.stderr), (0, ""), "nki-as deadlock.s")
for mode in ((), ("--functional",)):
    rc, se, _ = sim("--program", prog, "-o", os.path.join(d, "out_deadlock"), *mode)
    check_equal((rc, se), (1, f"{prog}: error: vector instruction 0 (memset): deadlock: vector waits for semaphore 0 "
                              ">= 1 (value is 0)\nnki-sim: note: no instruction of this core's program updates "
                              "semaphore 0\n"), f"program without .loc {mode}")
finish()
