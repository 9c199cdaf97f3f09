"""End-to-end: sendrecv hands packed MX tiles (float8_e4m3fn_x4: raw 32-bit words, float4_e2m1fn_x4: raw 16-bit words) to the other
core bit-exactly, timed and functional (a byte copy; issue 13 item 11)."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
K = write_file(d, "sr.py", '''import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sr(a):
    P, N = a.shape
    out = nl.ndarray((2 * P, N), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((P, N), dtype=a.dtype, buffer=nl.sbuf)
    r = nl.ndarray((P, N), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[:, :])
    nisa.sendrecv(src=t, dst=r, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    nisa.dma_copy(dst=out[pid * P:(pid + 1) * P, :], src=r)
    return out
''')
rng = np.random.default_rng(11)
for dt, wt in (("float8_e4m3fn_x4", np.uint32), ("float4_e2m1fn_x4", np.uint16)):
    words = rng.integers(0, 2**(8 * np.dtype(wt).itemsize), (32, 16), dtype=np.uint64).astype(wt)
    pw = save(d, f"w_{dt}.npy", words)
    outs = []
    for mode in ((), ("--functional",)):
        o = os.path.join(d, f"o_{dt}{len(mode)}")
        rc, so, se = run(K, "--inputs", f"{pw}:{dt}", "--lnc", "2", "-o", o, "-q", *mode)
        check_equal(rc, 0, f"{dt} {mode}: runs ({se})")
        if rc == 0:
            y = np.load(os.path.join(o, "output_0.npy"))
            check(np.array_equal(y.view(wt), np.concatenate([words, words])), f"{dt} {mode}: words exchanged exactly")
            outs.append(y)
    check(len(outs) == 2 and np.array_equal(outs[0], outs[1]), f"{dt}: timed and functional outputs identical")
finish()
