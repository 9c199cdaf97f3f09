"""Hostile programs and target parameters (issue 15): addresses wrapping past 2^64, sizes that disagree with
the shape, absurd semaphore counts and HBM sizes, out-of-range --param values. Each is refused before
anything is allocated, with a message naming the culprit, and leaves no output."""
import os
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, check, check_equal, finish, run, save, tmpdir, write_file

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
d = tmpdir()
x = save(d, "x.npy", np.ones((2048,), np.float32))
HEAD = ".target trn2\n.kernel k\n.semaphores 1\n"
CAP = "(trn2 HBM capacity 25769803776 bytes; --param hbm_capacity_bytes=N raises it)"


def nki_as(name, text):
    src = os.path.join(d, name + ".s")
    with open(src, "w") as f:
        f.write(text)
    out = os.path.join(d, name + ".bin")
    p = subprocess.run([os.path.join(TOOLS, "nki-as"), src, "-o", out], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr, src, out


def tensor(addr, nbytes):
    return HEAD + f".tensor t input bfloat16 [2048] @{addr} bytes={nbytes} param=0 out=0\n"


cases = [
    ("wrap", tensor("0xfffffffffffff000", 4096),
     f"tensor 't': address 18446744073709547520 + 4096 bytes is past the end of the target's HBM {CAP}"),
    ("size", tensor("0xffffffffffff0000", 65600), "tensor 't': bytes=65600 but its shape and dtype take 4096 bytes"),
    ("shape", HEAD + ".tensor t input float32 [4294967296,4294967296] @0x0 bytes=0 param=0 out=0\n",
     f"tensor 't': the shape has more elements than the target's HBM holds {CAP}"),
    ("big", HEAD + ".tensor t internal uint8 [2147483648] @0x0 bytes=2147483648\n.tensor u internal uint8 [1] "
     "@0x600000000 bytes=1\n", f"tensor 'u': address 25769803776 + 1 bytes is past the end of the target's HBM {CAP}"),
    ("sems", ".target trn2\n.kernel k\n.semaphores 4294967295\n",
     "program declares 4294967295 semaphores; at most 65536 can be addressed"),
    ("hbm", HEAD + ".hbm_bytes 0x10000000000\n", f"program declares .hbm_bytes 1099511627776 {CAP}"),
]
for name, text, msg in cases:
    rc, se, src, out = nki_as(name, text)
    check_equal((rc, se), (1, f"{src}: error: {msg}\n"), f"nki-as {name}")
    check(not os.path.exists(out), f"nki-as {name}: no output file")

# nki-sim --program: a binary nki-as accepted, patched to put the tensor's address at 2^64 - 4096 (the
# address is the 8 bytes before bytes=4096 in the TENS section; the format has no checksum).
rc, se, src, good = nki_as("good", tensor("0x12345000", 4096))
check_equal((rc, se), (0, ""), "nki-as of the unpatched program")
with open(good, "rb") as f:
    data = f.read()
pattern = (0x12345000).to_bytes(8, "little") + (4096).to_bytes(8, "little")
check_equal(data.count(pattern), 1, "the address appears once in the binary")
bad = os.path.join(d, "wrap_patched.bin")
with open(bad, "wb") as f:
    f.write(data.replace(pattern, (2**64 - 4096).to_bytes(8, "little") + (4096).to_bytes(8, "little")))
out = os.path.join(d, "out_wrap")
rc, so, se = run("--program", bad, "--inputs", x + ":bfloat16", "-o", out)
check_equal((rc, se), (1, f"{bad}: error: tensor 't': address 18446744073709547520 + 4096 bytes is past the end of "
                          f"the target's HBM {CAP}\n"), "nki-sim --program with a wrapping address")
check(not os.path.exists(out), "no output directory after a refused program")
rc, so, se = run("--program", good, "--inputs", x + ":bfloat16", "-o", out, "-q")
check_equal((rc, se), (0, ""), "the unpatched program runs")

# A program's .loc names any file and column: diagnostics locate the error there but quote no line of it (only
# kernel files the run compiled are quoted), so neither a column of 2^31 - 1 (a 2 GB caret line) nor
# /etc/passwd reaches stderr.
write_file(d, "k.py", "x = 1\n")
NOTE = "nki-sim: note: no instruction of this core's program updates semaphore 0\n"
for name, loc in [("bigcol", '"k.py" 1 2147483647'), ("passwd", '"/etc/passwd" 1 1')]:
    rc, se, src, prog = nki_as(name, HEAD + f".loc L1 {loc}\n.stream vector\n"
                                            "  memset dst=sbuf:float32@p0:128+0x0[[1,512]] wait=s0>=1 @L1\n")
    check_equal((rc, se), (0, ""), f"nki-as {name}")
    p = subprocess.run([NKISIM, "--program", prog, "-o", os.path.join(d, "out_" + name)], capture_output=True,
                       text=True, timeout=60, cwd=d)
    where = "k.py:1:2147483647" if name == "bigcol" else "/etc/passwd:1:1"
    check_equal((p.returncode, p.stderr),
                (1, f"{where}: error: deadlock: vector waits for semaphore 0 >= 1 (value is 0)\n{NOTE}"),
                f".loc {loc}: located, no line quoted")

# A program's tensor names reach output file names only as [A-Za-z0-9_.-]: an input named "/../../TRAVERSED"
# that the program writes comes back as one file inside -o.
rc, se, src, prog = nki_as("trav", HEAD + '.tensor "/../../TRAVERSED" input float32 [1,4] @0x0 bytes=16 param=0\n'
                           ".stream vector\n  memset dst=sbuf:float32@p0:1+0x0[[1,4]] imm0=5 signal=s0+1\n"
                           ".stream sync\n  dma_copy dst=hbm:float32@0x0[[4,1],[1,4]] src=sbuf:float32@p0:1+0x0[[1,4]] "
                           "queue=0 wait=s0>=1\n")
check_equal((rc, se), (0, ""), "nki-as trav")
x14 = save(d, "x14.npy", np.ones((1, 4), np.float32))
os.makedirs(os.path.join(d, "deep", "er"))
out = os.path.join(d, "deep", "er", "out")
rc, so, se = run("--program", prog, "--inputs", x14, "-o", out, "-q")
check_equal((rc, se, sorted(os.listdir(out))), (0, "", ["input__.._.._TRAVERSED.npy"]), "a traversing tensor name")
check((np.load(os.path.join(out, "input__.._.._TRAVERSED.npy")) == 5).all(), "the written input's values")
check_equal([os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if "TRAVERSED" in f],
            [os.path.join(out, "input__.._.._TRAVERSED.npy")], "nothing written outside -o")

# --param: every target parameter has a valid range; a bad command line exits 2.
ADD = os.path.join(EXAMPLES, "tensor_add.py")
for setting, msg in [
    ("psum_partition_bytes=0", "target parameter 'psum_partition_bytes' must be a whole number from 64 to 1048576 B, got 0"),
    ("psum_partition_bytes=-1", "target parameter 'psum_partition_bytes' must be a whole number from 64 to 1048576 B, got -1"),
    ("psum_banks=inf", "target parameter 'psum_banks' must be a whole number from 1 to 32, got inf"),
    ("psum_banks=1e30", "target parameter 'psum_banks' must be a whole number from 1 to 32, got 1e+30"),
    ("vector_ghz=0", "target parameter 'vector_ghz' must be a number from 0.001 to 1000 GHz, got 0"),
    ("dma_queues=nan", "target parameter 'dma_queues' must be a whole number from 1 to 256, got nan"),
]:
    rc, so, se = run(ADD, "--param", setting, "-o", os.path.join(d, "out_param"))
    check_equal((rc, se.splitlines()[0]), (2, f"nki-sim: error: --param {setting}: {msg}"), f"--param {setting}")
finish()
