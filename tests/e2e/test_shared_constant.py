"""End-to-end: a permutation constant built at compile time with numpy (np.zeros + item assignment in a loop,
np.arange, slicing, .T) becomes an nl.shared_constant that a matmul uses; the program carries the constant's bytes
(`.tensor ... init=`), which survive the asm -> binary -> asm round trip; the same kernel under --lnc 2 (issue 13
items 6 and 12)."""
import os
import subprocess

import numpy as np

from common import NKISIM, check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
K = write_file(d, "perm.py", '''import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl


def permutation(n):
    order = np.arange(n).reshape((2, n // 2))[:, ::-1].T.reshape(n)  # a fixed shuffle
    p = np.zeros((n, n), dtype=np.float32)
    for i in range(n):
        p[int(order[i]), i] = 1.0
    return p


@nki.jit
def permute_columns(a):
    out = nl.ndarray((64, 128), nl.float32, buffer=nl.shared_hbm)
    perm = nl.shared_constant(permutation(128))
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    p = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=p, src=perm)
    ps = nl.ndarray((64, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=t, moving=p)
    r = nl.ndarray((64, 128), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=ps)
    nisa.dma_copy(dst=out, src=r)
    return out
''')
n = 128
order = np.arange(n).reshape((2, n // 2))[:, ::-1].T.reshape(n)
P = np.zeros((n, n), dtype=np.float32)
P[order, np.arange(n)] = 1.0
a = np.random.default_rng(7).standard_normal((128, 64)).astype(np.float32)
pa = save(d, "a.npy", a)
for extra in [[], ["--lnc", "2"]]:
    out = os.path.join(d, "o" + "".join(extra).replace("-", ""))
    rc, so, se = run(K, "--inputs", pa, "-o", out, "-q", *extra)
    check_equal(rc, 0, f"runs {extra} ({se})")
    if rc == 0:
        y = np.load(os.path.join(out, "output_0.npy"))
        check(np.array_equal(y, a.T @ P), f"{extra}: a.T @ P, the columns of a.T permuted exactly")

asm = os.path.join(d, "p.s")
rc, so, se = run(K, "--inputs", pa, "--emit", "asm", asm, "-q")
check_equal(rc, 0, f"--emit asm ({se})")
text = open(asm).read()
line = [l for l in text.splitlines() if " init=" in l]
check_equal(len(line), 1, "one tensor carries constant data")
if line:
    hexdata = line[0].split(" init=")[1]
    check(bytes.fromhex(hexdata) == P.tobytes(), "init= holds the constant's float32 bytes in row-major order")
    check(" internal float32 [128,128] " in line[0], "the constant is an internal [128,128] float32 tensor")
bindir = os.path.dirname(NKISIM)
nbin = os.path.join(d, "p.nkibin")
r1 = subprocess.run([os.path.join(bindir, "nki-as"), asm, "-o", nbin], capture_output=True, text=True)
check_equal(r1.returncode, 0, f"nki-as ({r1.stderr})")
r2 = subprocess.run([os.path.join(bindir, "nki-objdump"), nbin], capture_output=True, text=True)
check_equal(r2.returncode, 0, f"nki-objdump ({r2.stderr})")
check(r2.stdout == text, "asm -> binary -> asm gives the same text, constant data included")
finish()
