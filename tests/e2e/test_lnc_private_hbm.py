"""End-to-end: private HBM (buffer=nl.private_hbm / nl.hbm) is per core under LNC=2. Both cores make a private
scratch tensor of the same name and shape; core 0 writes its rows there, computes for a while, then reads them back,
while core 1 writes its own rows to its scratch meanwhile. With one address for both (nki-library's rotational top-k
did this) core 0 read core 1's rows in the timed run. Shared tensors keep one address on both cores."""
import os
import re

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
K = write_file(d, "private.py", '''import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def private_scratch(a):
    R, F = a.shape
    out = nl.ndarray((R, F), nl.float32, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    r0 = pid * 128
    t = nl.ndarray((128, F), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[r0:r0 + 128, :])
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=float(pid + 2))
    scratch = nl.ndarray((128, F), nl.float32, buffer=nl.private_hbm)
    nisa.dma_copy(dst=scratch, src=t)
    busy = nl.ndarray((128, F), nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=busy, value=0.0)
    for i in range(24 if pid == 0 else 1):  # core 0 is slow before it reads its scratch back
        nisa.activation(dst=busy, op=nl.exp, data=busy, scale=0.0)
    back = nl.ndarray((128, F), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=back, src=scratch)
    nisa.tensor_tensor(dst=back, data1=back, data2=busy, op=nl.add)
    nisa.dma_copy(dst=out[r0:r0 + 128, :], src=back)
    return out
''')
a = np.random.default_rng(3).standard_normal((256, 512)).astype(np.float32)
pa = save(d, "a.npy", a)
asm = os.path.join(d, "k.s")
o = os.path.join(d, "o")
rc, so, se = run(K, "--inputs", pa, "--lnc", "2", "-o", o, "-q", "--emit", "asm", asm)
check_equal(rc, 0, f"runs at LNC=2 ({se})")
if rc == 0:
    y = np.load(os.path.join(o, "output_0.npy"))
    want = np.concatenate([a[:128] * 2.0, a[128:] * 3.0]) + 1.0
    check(np.array_equal(y, want), "each core reads back its own private scratch (timed; functional by run())")
    text = open(asm).read()
    scratch = re.findall(r"^\.tensor scratch internal float32 \[128,512\] @(0x[0-9a-f]+) bytes=262144", text, re.M)
    outs = re.findall(r"^\.tensor out output float32 \[256,512\] @(0x[0-9a-f]+)", text, re.M)
    check_equal(len(scratch), 2, "one private scratch per core")
    if len(scratch) == 2:
        s0, s1 = (int(x, 16) for x in scratch)
        check(s1 >= s0 + 262144, f"core 1's scratch ({hex(s1)}) lies after core 0's ({hex(s0)})")
    check(len(outs) == 2 and outs[0] == outs[1], f"the shared output has one address on both cores: {outs}")
finish()
