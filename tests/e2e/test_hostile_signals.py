"""Ctrl-C and SIGTERM during a run (issue 15): the staged temporary files (and the output folder the run
created) are removed before the process dies of the signal, so an interrupted run leaves no `.tmp` file and no
new or changed output. The signal is sent while nki-sim writes a 128 MiB output (the temporary file exists),
and, as a baseline, while it simulates (before any output exists)."""
import os
import signal
import subprocess
import time

import numpy as np

from common import NKISIM, check, check_equal, finish, save, tmpdir, write_file

d = tmpdir()
KERNEL = write_file(d, "wide.py", '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def wide(a_input):
    """A [128, 262144] fp32 output (128 MiB) made of 512 copies of the input tile."""
    out = nl.ndarray((128, 262144), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a_input)
    for j in range(512):
        nisa.dma_copy(dst=out[:, j * 512:(j + 1) * 512], src=t)
    return out
''')
A = save(d, "a.npy", np.full((128, 512), 3.0, np.float32))


def temporaries(folder):
    return sorted(f for f in os.listdir(folder) if ".tmp" in f) if os.path.isdir(folder) else []


def interrupt_while_writing(sig, out, trace):
    """Starts a run and sends `sig` as soon as a temporary output file exists; returns (returncode, caught)."""
    p = subprocess.Popen([NKISIM, KERNEL, "--inputs", A, "-o", out, "--trace", trace, "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    caught = False
    deadline = time.time() + 120
    while p.poll() is None and time.time() < deadline:
        if temporaries(out):
            p.send_signal(sig)
            caught = True
            break
        time.sleep(0.0005)
    p.communicate(timeout=120)
    return p.returncode, caught


for sig in (signal.SIGINT, signal.SIGTERM):
    name = signal.Signals(sig).name
    # A new output folder: removed again, with the temporary files and the trace's.
    for attempt in range(5):  # the write takes some 100 ms; retried if the run ended before the signal
        out = os.path.join(d, f"out_{name}_{attempt}")
        trace = os.path.join(d, f"trace_{name}_{attempt}.json")
        rc, caught = interrupt_while_writing(sig, out, trace)
        if caught:
            break
    check(caught, f"{name}: the signal reached nki-sim while it wrote its output")
    check_equal(rc, -sig, f"{name}: nki-sim dies of the signal")
    check(not os.path.exists(out), f"{name}: the output folder nki-sim created is removed")
    check(not os.path.exists(trace), f"{name}: no trace file")
    check_equal(temporaries(d), [], f"{name}: no temporary file beside the trace")

    # An existing output folder with an earlier result: that result stays as it was.
    for attempt in range(5):
        out = os.path.join(d, f"keep_{name}_{attempt}")
        os.makedirs(out)
        old = os.path.join(out, "output_0.npy")
        np.save(old, np.arange(4, dtype=np.int32))
        trace = os.path.join(d, f"trace_keep_{name}_{attempt}.json")
        rc, caught = interrupt_while_writing(sig, out, trace)
        if caught:
            break
    check(caught and rc == -sig, f"{name}: interrupted while replacing an existing output")
    check_equal(sorted(os.listdir(out)), ["output_0.npy"], f"{name}: only the earlier output is in the folder")
    check((np.load(old) == np.arange(4)).all(), f"{name}: the earlier output is unchanged")

# Interrupted while simulating (a 20,000,000-iteration dynamic loop, some 6 s on an idle machine): no output at all.
LOOP = write_file(d, "loop.py", '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def spin(a_input, count):
    out = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=acc, src=a_input)
    n = nisa.register_alloc()
    nisa.register_load(n, count)

    def body(i):
        nisa.tensor_scalar(dst=acc, data=acc, op0=nl.add, operand0=1.0)

    nl.fori_loop(0, n, body)
    nisa.dma_copy(dst=out, src=acc)
    return out
''')
one = save(d, "one.npy", np.zeros((1, 1), np.float32))
count = save(d, "count.npy", np.array([[20000000]], np.int32))
out = os.path.join(d, "out_loop")
p = subprocess.Popen([NKISIM, LOOP, "--inputs", one, "--inputs", count, "-o", out, "--stats",
                      os.path.join(d, "loop_stats.json"), "--max-loop-iterations", "30000000", "-q"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
time.sleep(1.0)
running = p.poll() is None
p.send_signal(signal.SIGINT)
p.communicate(timeout=120)
check(running, "the 20,000,000-iteration loop still ran after 1 s")
check_equal(p.returncode, -signal.SIGINT, "SIGINT while simulating: nki-sim dies of the signal")
check(not os.path.exists(out) and not os.path.exists(os.path.join(d, "loop_stats.json")),
      "SIGINT while simulating: no output folder, no stats file")
check_equal(temporaries(d), [], "SIGINT while simulating: no temporary file")
finish()
