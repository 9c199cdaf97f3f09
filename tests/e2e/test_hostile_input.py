"""Hostile and careless input (issue 15): FIFOs and devices as input files, a directory as the kernel,
negative or overflowing numeric options, relative imports above the top-level package. Each is one clear
message with exit 1 (2 for a bad command line), without hanging."""
import os
import subprocess

from common import EXAMPLES, NKISIM, check, check_equal, finish, run, tmpdir, write_file

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
ADD = os.path.join(EXAMPLES, "tensor_add.py")
d = tmpdir()
fifo = os.path.join(d, "fifo")
os.mkfifo(fifo)
out = os.path.join(d, "out")


def first_line(args, tool="nki-sim"):
    p = subprocess.run([os.path.join(TOOLS, tool), *args], capture_output=True, text=True, timeout=30)
    return p.returncode, (p.stderr.splitlines() or [""])[0]


# Files that are not regular files are refused at once (a FIFO without a writer would block forever).
check_equal(first_line([fifo, "-o", out]), (1, f"{fifo}: error: cannot read kernel file: not a regular file (a FIFO)"),
            "FIFO as the kernel")
check_equal(first_line(["--program", fifo, "-o", out]), (1, f"{fifo}: error: cannot open: not a regular file (a FIFO)"),
            "FIFO as --program")
check_equal(first_line(["--program", "/dev/zero", "-o", out]),
            (1, "/dev/zero: error: cannot open: not a regular file (a character device)"), "/dev/zero as --program")
check_equal(first_line([fifo, "-o", os.path.join(d, "x.bin")], "nki-as"),
            (1, f"{fifo}: error: cannot open: not a regular file (a FIFO)"), "FIFO as nki-as input")
check_equal(first_line([ADD, "--inputs", fifo, fifo, "-o", out]),
            (1, f"nki-sim: error: {fifo}: cannot open: not a regular file"), "FIFO as --inputs")
for dev in ("/dev/zero", "/dev/urandom"):  # read until allocation failed before
    what = "not a regular file (a character device)"
    check_equal(first_line([dev, "-o", out]), (1, f"{dev}: error: cannot read kernel file: {what}"), f"{dev} as the kernel")
    check_equal(first_line(["--program", dev, "-o", out]), (1, f"{dev}: error: cannot open: {what}"), f"{dev} as --program")
    for tool in ("nki-as", "nki-objdump"):
        check_equal(first_line([dev, "-o", os.path.join(d, "x.out")], tool), (1, f"{dev}: error: cannot open: {what}"),
                    f"{dev} as {tool} input")
check_equal(first_line([fifo, "-o", os.path.join(d, "x.s")], "nki-objdump"),
            (1, f"{fifo}: error: cannot open: not a regular file (a FIFO)"), "FIFO as nki-objdump input")
check_equal(first_line([d, "-o", out]), (1, f"{d}: error: cannot read kernel file: Is a directory"), "directory as the kernel")
import numpy as np  # noqa: E402
s7 = os.path.join(d, "s7.npy")
np.save(s7, np.ones((1,) * 7, np.float32))
check_equal(first_line([ADD, "--inputs", s7, s7, "-o", out]),
            (1, f"nki-sim: error: {s7}: a 7-d array; a kernel tensor has at most 6 dimensions"), "7-d .npy names the file")
check(not os.path.exists(out), "no output after refused inputs")

# Numeric options: negative, zero or overflowing values are a bad command line.
for args, msg in [
    (["--max-steps", "-1"], "--max-steps expects a positive whole number, got '-1'"),
    (["--max-instructions=-5"], "--max-instructions expects a positive whole number, got '-5'"),
    (["--max-loop-iterations=-1"], "--max-loop-iterations expects a positive whole number, got '-1'"),
    (["--max-steps", "99999999999999999999"], "--max-steps expects a positive whole number, got '99999999999999999999'"),
    (["--explain=99999999999999999999"],
     "--explain expects LINE or FILE:LINE (a positive line number), got '99999999999999999999'"),
    (["--grid", "65536,65536,65536,65536"],
     "--grid 65536,65536,65536,65536 launches more than 65536 programs (the most one run simulates)"),
]:
    check_equal(first_line([ADD, *args, "-o", out]), (2, f"nki-sim: error: {msg}"), f"option {args}")

# Relative imports stop at the top-level package, as in CPython: the kernel's folder is no package here.
write_file(d, "secret.py", "TOKEN = 1\n")
sub = os.path.join(d, "k")
os.mkdir(sub)
kern = write_file(sub, "kern.py", "from ..secret import TOKEN\n")
rc, line = first_line([kern, "-o", out])
check_equal(rc, 1, f"relative import above the package: exit code ({line})")
check("attempted relative import beyond top-level package" in line, f"relative import above the package: {line!r}")
finish()
