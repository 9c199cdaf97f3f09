"""Output files (issue 15): an output that is one of the run's inputs is refused (exit 2, compared by file
identity, not spelling); every output is written to a temporary file beside it and renamed into place only
when the whole run succeeded, so a failed run (a run-time error, `ulimit -f`) leaves no new or changed
output and no temporary file; a symlink the user put at an output path is written through."""
import os
import resource
import shutil
import stat
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, check, check_equal, finish, save, tmpdir

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
d = tmpdir()
kern = os.path.join(d, "add.py")
shutil.copy(os.path.join(EXAMPLES, "tensor_add.py"), kern)
a = save(d, "a.npy", np.ones((128, 512), np.float32))
b = save(d, "b.npy", np.full((128, 512), 2, np.float32))


def limits(fsize=None):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


def sim(*args, fsize=None, tool="nki-sim", cwd=None):
    p = subprocess.run([os.path.join(TOOLS, tool), *args], capture_output=True, text=True, timeout=120,
                       preexec_fn=limits(fsize), cwd=cwd)
    return p.returncode, (p.stderr.splitlines() or [""])[0]


def snapshot():
    """Every file under d with its contents (bytes), to prove a refused or failed run changed nothing."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.relpath(os.path.join(root, f), d)] = fh.read()
    return out


RUN = [kern, "--inputs", a, b, "-q"]
before = snapshot()
# An output onto an input: the kernel source, an --inputs file (also spelled differently, or through a
# symlink), an --inputs FILE:DTYPE; each output option.
os.symlink(a, os.path.join(d, "link_a.npy"))
spelled = os.path.join(d, ".", "sub", "..", "add.py")
os.mkdir(os.path.join(d, "sub"))
for args, msg in [
    (["--stats", kern], f"--stats {kern} is the input file {kern} (it would be overwritten)"),
    (["--trace", spelled], f"--trace {spelled} is the input file {kern} (it would be overwritten)"),
    (["--profile=" + a], f"--profile {a} is the input file {a} (it would be overwritten)"),
    (["--emit", "asm", os.path.join(d, "link_a.npy")],
     f"--emit {os.path.join(d, 'link_a.npy')} is the input file {a} (it would be overwritten)"),
    (["--stats", os.path.join(d, "s.json"), "--trace", os.path.join(d, "s.json")],
     f"--trace {os.path.join(d, 's.json')} is also written by --stats"),
]:
    rc, line = sim(*RUN, "-o", os.path.join(d, "out1"), *args)
    check_equal((rc, line), (2, f"nki-sim: error: {msg}"), f"output onto an input: {args}")
# -o DIR whose output_0.npy is an input file.
out0 = os.path.join(d, "o")
os.mkdir(out0)
np.save(os.path.join(out0, "output_0.npy"), np.ones((128, 512), np.float32))
rc, line = sim(kern, "--inputs", os.path.join(out0, "output_0.npy"), b, "-o", out0, "-q")
check_equal((rc, line), (2, f"nki-sim: error: -o {os.path.join(out0, 'output_0.npy')} is the input file "
                            f"{os.path.join(out0, 'output_0.npy')} (it would be overwritten)"), "-o onto an input")
os.remove(os.path.join(d, "link_a.npy"))
os.rmdir(os.path.join(d, "sub"))
after = snapshot()
del after["o/output_0.npy"]
check_equal(after, before, "refused runs changed no file")

# --program onto itself, nki-as / nki-objdump -o onto their input.
prog = os.path.join(d, "add.nkibin")
rc, line = sim(*RUN, "-o", os.path.join(d, "out2"), "--emit", "bin", prog)
check_equal((rc, line), (0, ""), "emit bin")
with open(prog, "rb") as f:
    prog_bytes = f.read()
rc, line = sim("--program", prog, "--inputs", a, b, "-o", os.path.join(d, "out3"), "--emit", "bin", prog)
check_equal((rc, line), (2, f"nki-sim: error: --emit {prog} is the input file {prog} (it would be overwritten)"),
            "--emit onto --program")
rc, line = sim(prog, "-o", prog, tool="nki-objdump")
check_equal((rc, line), (2, f"nki-objdump: error: -o {prog} is the input file {prog} (it would be overwritten)"),
            "nki-objdump -o onto its input")
asm = os.path.join(d, "add.s")
rc, line = sim(prog, "-o", asm, tool="nki-objdump")
check_equal(rc, 0, "nki-objdump")
rc, line = sim(asm, "-o", asm, tool="nki-as")
check_equal((rc, line), (2, f"nki-as: error: -o {asm} is the input file {asm} (it would be overwritten)"),
            "nki-as -o onto its input")
with open(prog, "rb") as f:
    check(f.read() == prog_bytes, "the program is unchanged")

# A failed run changes no output: outputs of a good run stay as they were when a later run fails at run time
# (a kernel reading past its input) or when a write fails (ulimit -f), and no temporary file is left.
good = os.path.join(d, "good")
stats, trace, emit = (os.path.join(d, n) for n in ("st.json", "tr.json", "k.s"))
rc, line = sim(*RUN, "-o", good, "--stats", stats, "--trace", trace, "--emit", "asm", emit)
check_equal((rc, line), (0, ""), "the good run")
before = snapshot()
rc, line = sim(*RUN, "-o", good, "--stats", stats, "--trace", trace, "--emit", "asm", emit, "--max-run-elements", "10")
check(rc == 1 and "--max-run-elements" in line, f"a run-time error: exit 1 ({rc}, {line!r})")
check_equal(snapshot(), before, "a run-time error changed no output and left no temporary file")
for fsize in (1000, 70000, 200000):
    rc, line = sim(*RUN, "-o", good, "--stats", stats, "--trace", trace, "--emit", "asm", emit, fsize=fsize)
    check(rc == 1 and "File too large" in line, f"ulimit -f {fsize}: exit 1 naming the cause ({rc}, {line!r})")
    check_equal(snapshot(), before, f"ulimit -f {fsize}: no output changed, no temporary file")
fresh = os.path.join(d, "fresh", "deeper")
rc, line = sim(*RUN, "-o", fresh, fsize=70000)
check(rc == 1 and not os.path.exists(os.path.join(d, "fresh")), "a failed run removes the folders it created")

# Devices and pipes are written directly, never replaced by a renamed file (that replaced /dev/null itself when
# nki-sim ran as root): a FIFO with a reader, and /dev/stdout (a pipe here) for two outputs. A directory is an
# error naming it.
fifo = os.path.join(d, "stats.fifo")
os.mkfifo(fifo)
reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
rc, line = sim(*RUN, "-o", good, "--stats", fifo)
got = reader.communicate(timeout=60)[0]
check_equal((rc, line), (0, ""), "--stats onto a FIFO")
check(stat.S_ISFIFO(os.stat(fifo).st_mode) and got.startswith(b"{"), "the FIFO stays a FIFO and its reader got the stats")
os.remove(fifo)
p = subprocess.run([os.path.join(TOOLS, "nki-sim"), *RUN, "-o", good, "--stats", "/dev/stdout", "--trace", "/dev/stdout"],
                   capture_output=True, text=True, timeout=120)
check_equal((p.returncode, p.stderr, p.stdout[:1], p.stdout.count('"traceEvents"')), (0, "", "{", 1),
            "--stats and --trace onto /dev/stdout (a pipe)")
check_equal(sim(*RUN, "-o", good, "--stats", d), (1, f"{d}: error: cannot write file: Is a directory"),
            "--stats onto a directory")
check_equal([f for f in os.listdir(d) if ".tmp" in f], [], "no temporary file")

check_equal(sim(*RUN, "-o", good, "--trace", ""), (2, "nki-sim: error: --trace expects a file name, got ''"),
            "--trace ''")

# An output name of 255 bytes (NAME_MAX) is valid: its temporary file's name is shortened to fit.
long_name = os.path.join(d, "s" * 250 + ".json")
check_equal(sim(*RUN, "-o", good, "--stats", long_name), (0, ""), "--stats with a 255-byte file name")
check(open(long_name).read().startswith("{"), "the 255-byte file holds the stats")
os.remove(long_name)

# bundle-run: its -o may not be the bundle's own reference folder (it would overwrite the reference, then find
# it identical), and a failed bundle-run leaves no output file.
bundle = os.path.join(d, "bundle")
check_equal(sim("bundle", *RUN, "-o", bundle), (0, ""), "nki-sim bundle")
ref = os.path.join(bundle, "nki-sim", "output_0.npy")
before = snapshot()
check_equal(sim("bundle-run", bundle, "-o", os.path.join(bundle, "nki-sim")),
            (1, f"{ref}: error: is the bundle's own {ref} (it would be overwritten)"), "bundle-run -o onto the bundle")
rc, line = sim("bundle-run", bundle, "-o", os.path.join(d, "rerun"), fsize=100000)
check_equal((rc, line), (1, f"{os.path.join(d, 'rerun', 'output_0.npy')}: error: cannot write: File too large"),
            "bundle-run under ulimit -f")
check_equal(snapshot(), before, "bundle-run changed no file and left no temporary file")

# A symlink at an output path is written through (the file it names gets the output, the link stays).
real = os.path.join(d, "real_stats.json")
with open(real, "w") as f:
    f.write("old")
link = os.path.join(d, "stats_link.json")
os.symlink(real, link)
rc, line = sim(*RUN, "-o", good, "--stats", link)
check_equal((rc, line), (0, ""), "stats through a symlink")
check(os.path.islink(link) and open(real).read().startswith("{"), "the symlink stays and its target got the stats")
finish()
