"""End-to-end (issue 18 part 8): device_print of a tile of more than 1000 elements is summarised like numpy (the first
and last 3 partitions and elements, "..." between), up to 1000 printed in full; --print-dir saves every printed tile
as NAME_N.npy. The progress line appears only on a terminal: a piped run prints nothing extra on stderr."""
import os
import pty
import select
import subprocess

import numpy as np

from common import NKISIM, check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
kernel = write_file(d, "prints.py", """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def prints(x):
    big = nl.load(x[:, 0:16])
    nl.device_print("big", big)
    edge = nl.load(x[0:8, 0:125])
    nl.device_print("edge", edge)
    over = nl.load(x[0:8, 0:126])
    nl.device_print("over", over)
    nl.device_print("big", nl.multiply(big, 2.0))
    out = nl.ndarray((128, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=big)
    return out
""")
x = np.arange(128 * 128, dtype=np.float32).reshape(128, 128)
px = save(d, "x.npy", x)


def row(vals):
    return "[" + ", ".join(f"{v:.1f}" for v in vals) + "]"


def summary_row(vals):
    return "[" + ", ".join(f"{v:.1f}" for v in vals[:3]) + ", ..., " + ", ".join(f"{v:.1f}" for v in vals[-3:]) + "]"


expected_big = ("prints.py:9: big: [[0.0, 1.0, 2.0, ..., 13.0, 14.0, 15.0], [128.0, 129.0, 130.0, ..., 141.0, 142.0, "
                "143.0], [256.0, 257.0, 258.0, ..., 269.0, 270.0, 271.0], ..., [16000.0, 16001.0, 16002.0, ..., "
                "16013.0, 16014.0, 16015.0], [16128.0, 16129.0, 16130.0, ..., 16141.0, 16142.0, 16143.0], [16256.0, "
                "16257.0, 16258.0, ..., 16269.0, 16270.0, 16271.0]]\n")
expected_edge = "prints.py:11: edge: [" + ", ".join(row(x[p, :125]) for p in range(8)) + "]\n"
expected_over = ("prints.py:13: over: [" + ", ".join(summary_row(x[p, :126]) for p in (0, 1, 2)) + ", ..., " +
                 ", ".join(summary_row(x[p, :126]) for p in (5, 6, 7)) + "]\n")
expected_big2 = "prints.py:14: big: [" + ", ".join(summary_row(2 * x[p, :16]) for p in (0, 1, 2)) + ", ..., " + \
    ", ".join(summary_row(2 * x[p, :16]) for p in (125, 126, 127)) + "]\n"

pdir = os.path.join(d, "printed")
rc, so, se = run("prints.py", "--inputs", px, "-o", os.path.join(d, "o"), "-q", "--print-dir", pdir, cwd=d)
check_equal(rc, 0, f"prints.py exit code ({se[:300]})")
lines = se.splitlines(keepends=True)
check_equal(len(lines), 4, "four device_print lines")
if len(lines) == 4:
    check_equal(lines[0], expected_big, "a [128, 16] tile (2048 elements) is summarised")
    check_equal(lines[1], expected_edge, "1000 elements are printed in full")
    check_equal(lines[2], expected_over, "1008 elements: partitions and elements summarised")
    check_equal(lines[3], expected_big2, "the second print of big")
    check_equal(lines[1].count("..."), 0, "no ellipsis at the threshold")
saved = sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []
check_equal(saved, ["big_0.npy", "big_1.npy", "edge_0.npy", "over_0.npy"], "--print-dir files")
if saved == ["big_0.npy", "big_1.npy", "edge_0.npy", "over_0.npy"]:
    b0, b1 = np.load(os.path.join(pdir, "big_0.npy")), np.load(os.path.join(pdir, "big_1.npy"))
    check(b0.dtype == np.float32 and np.array_equal(b0, x[:, :16]), "big_0.npy holds the whole tile")
    check(np.array_equal(b1, 2 * x[:, :16]), "big_1.npy holds the second print")
    check(np.array_equal(np.load(os.path.join(pdir, "over_0.npy")), x[:8, :126]), "over_0.npy holds the whole tile")

# Progress: a run of some 20k instructions with the delay set to 0 s. Piped: nothing on stderr. On a terminal:
# `nki-sim: simulating N% (...)` lines, erased at the end.
loop = write_file(d, "loop.py", """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def loop(x):
    out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    for i in range(10000):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
        nisa.activation(dst=t, op=nl.copy, data=t)
    nisa.dma_copy(dst=out, src=t)
    return out
""")
py = save(d, "y.npy", np.zeros((128, 4), np.float32))
env = dict(os.environ, NKISIM_PROGRESS_DELAY="0")
args = [NKISIM, loop, "--inputs", py, "-o", os.path.join(d, "lo"), "-q"]
p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
check_equal((p.returncode, p.stdout, p.stderr), (0, "", ""), "a piped run prints nothing on stderr")


def on_terminal(extra_env):
    """(exit code, what the run wrote to its terminal stderr)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave, env=dict(os.environ, **extra_env))
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=60), out.decode(errors="replace")


rc, tty = on_terminal({"NKISIM_PROGRESS_DELAY": "0"})
check(rc == 0 and "\rnki-sim: simulating" in tty.replace("\r\x1b[K", "\r") and "instructions, " in tty,
      f"progress on a terminal: {tty[:300]!r}")
check(tty.endswith("\r\x1b[K"), f"the progress line is erased at the end: {tty[-40:]!r}")
rc, tty = on_terminal({})
check(rc == 0 and tty == "", f"a run shorter than 2 s shows no progress: {tty[:200]!r}")

finish()
