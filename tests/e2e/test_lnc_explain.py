"""End to end: --explain (and --profile's stall list) of an LNC=2 run says what a core_barrier / sendrecv waited for on the other core (the
peer's matching instruction, when it became ready and signalled, when its signal arrived core_barrier_ns later),
instead of a semaphore wait (docs/lnc.md, sim/explain_run.cpp). The times are closed form from the other lines
of the same --explain: a barrier or sendrecv signals when its core's last access of its data retired."""
import os
import re

import numpy as np

from common import SRC, check, check_equal, finish, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
BARRIER_NS = 1300.0  # trn2 core_barrier_ns (isa/target.cpp)
d = tmpdir()
rng = np.random.default_rng(5)
pp = save(d, "p.npy", rng.standard_normal((128, 64), dtype=np.float32))
psa = save(d, "sa.npy", rng.standard_normal((256, 64), dtype=np.float32))


def sections(kernel, inp):
    """The --explain text of each core: {core: {source line: [instruction block text, ...]}}."""
    rc, so, se = run("lnc.py", "-k", kernel, "--inputs", inp, "--lnc", "2", "-q", "-o", d, "--explain",
                     cwd=os.path.dirname(K))
    check_equal(rc, 0, f"{kernel} --explain exit code ({se})")
    out = {}
    for part in re.split(r"\ncore (\d): ", "\n" + so)[1:]:
        if part.isdigit():
            core = int(part)
            out[core] = {}
            continue
        for block in part.split("\n\n")[1:]:
            line = int(re.search(r"\[lnc\.py:(\d+)\]", block).group(1))
            out[core].setdefault(line, []).append(block)
    return out


def field(block, name):
    return float(re.search(name + r" (-?[0-9.]+) ns", block).group(1))


def waited(block):
    return next((l for l in block.splitlines() if l.startswith("  waited:")), None)


# core_barrier (lnc.py:44): core 0 stores 2a to the scratch (line 41) and signals once that store retired, at
# X; core 1 has nothing before its barrier and signals at 0, which reaches core 0 at 1300 ns (before X).
ex = sections("lnc_barrier", pp)
x = field(ex[0][41][0], "retired")
b0, b1 = ex[0][44][0], ex[1][44][0]
check_equal(field(b0, "start"), round(x, 3), "core 0's barrier starts when its store of the scratch retired")
check_equal(waited(b0), f"  waited:   {x:.3f} ns for this core's earlier instructions and semaphore waits (signalled "
            f"core 1 at {x:.3f} ns); core 1's matching core_barrier (gpsimd #0, lnc.py:44) became ready and "
            f"signalled at 0.000 ns, arriving at {BARRIER_NS:.3f} ns", "core 0's barrier waited for its own store")
check_equal(waited(b1), f"  waited:   {x + BARRIER_NS:.3f} ns for core 0's matching core_barrier (gpsimd #0, "
            f"lnc.py:44): it became ready and signalled at {x:.3f} ns, arriving at {x + BARRIER_NS:.3f} ns "
            f"(+ core_barrier_ns 1300); this core signalled at 0.000 ns", "core 1's barrier waited for core 0's")
check("semaphore s" not in b0 + b1, "no semaphore text for a cross-core wait")
# --profile's stall list says the same (in us).
rc, so, se = run("lnc.py", "-k", "lnc_barrier", "--inputs", pp, "--lnc", "2", "-q", "-o", d, "--profile",
                 cwd=os.path.dirname(K))
y = (x + BARRIER_NS) / 1000
stalls = [l for l in so.splitlines() if "gpsimd core_barrier (lnc.py:44) at" in l]
check_equal(stalls, [f"  {x / 1000:9.3f} us  gpsimd core_barrier (lnc.py:44) at {x / 1000:.3f} us: waited for this "
                     f"core's earlier instructions and semaphore waits (signalled core 1 at {x / 1000:.3f} us)",
                     f"  {y:9.3f} us  gpsimd core_barrier (lnc.py:44) at {y:.3f} us: waited for core 0's matching "
                     f"core_barrier (gpsimd #0, lnc.py:44), signalled at {x / 1000:.3f} us, arriving at {y:.3f} us"],
            f"--profile stalls of the barriers ({se})")

# sendrecv (lnc.py:79): on each core src's writer (tensor_scalar, line 78) retires at R_c (the cores' loads share
# HBM, so R_0 and R_1 may differ by a few ns); each core signals then and starts when the peer's signal arrives,
# R_peer + core_barrier_ns.
ex = sections("lnc_sendrecv", psa)
for c in (0, 1):
    r = field(ex[c][78][0], "retired")
    rp = field(ex[1 - c][78][0], "retired")
    check(abs(r - rp) < 10, f"both cores' writers retire within a few ns ({r}, {rp})")
    s = ex[c][79][0]
    check_equal(field(s, "start"), round(rp + BARRIER_NS, 3), f"core {c}'s sendrecv starts when the peer's signal arrives")
    check_equal(waited(s), f"  waited:   {rp + BARRIER_NS:.3f} ns for core {1 - c}'s matching sendrecv (gpsimd #0, "
                f"pipe_id 0, lnc.py:79): it became ready and signalled at {rp:.3f} ns, arriving at "
                f"{rp + BARRIER_NS:.3f} ns (+ core_barrier_ns 1300); this core signalled at {r:.3f} ns",
                f"core {c}'s sendrecv waited for core {1 - c}'s")
# the second exchange (line 83, pipe_id 1) names the peer's instruction #1 on gpsimd
check("for core 1's matching sendrecv (gpsimd #1, pipe_id 1, lnc.py:83)" in waited(ex[0][83][0]),
      f"second sendrecv: {waited(ex[0][83][0])!r}")

finish()
