"""End-to-end: a kernel that shards itself the way nki-library does (program_ndim() != 0 and num_programs(axes=0) > 1,
then program_id(axis=0) picks the half) runs each half on its own core under --lnc 2: the same output as LNC=1, timed
and functional, in less simulated time (issue 13 item 2)."""
import os

import numpy as np

from common import check, check_equal, finish, load_json, run, save, tmpdir, write_file

d = tmpdir()
K = write_file(d, "sharded.py", '''import nki
import nki.isa as nisa
import nki.language as nl


def sharding():
    if nl.program_ndim() != 0 and nl.num_programs(axes=0) > 1:
        return nl.num_programs(axes=0), nl.program_id(axis=0)
    return 1, 0


@nki.jit
def sharded(a):
    R, F = a.shape
    out = nl.ndarray((R, F), nl.float32, buffer=nl.shared_hbm)
    n, pid = sharding()
    rows = R // n
    for i in range(rows // 128):
        r0 = pid * rows + i * 128
        t = nl.ndarray((128, F), nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[r0:r0 + 128, :])
        nisa.activation(dst=t, op=nl.exp, data=t, scale=0.5)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=3.0, op1=nl.add, operand1=1.0)
        nisa.dma_copy(dst=out[r0:r0 + 128, :], src=t)
    return out
''')
rng = np.random.default_rng(9)
a = rng.standard_normal((1024, 512)).astype(np.float32)
pa = save(d, "a.npy", a)
res = {}
for lnc in ("1", "2"):
    for mode in ((), ("--functional",)):
        o = os.path.join(d, f"o{lnc}{len(mode)}")
        st = os.path.join(d, f"s{lnc}{len(mode)}.json")
        rc, so, se = run(K, "--inputs", pa, "--lnc", lnc, "-o", o, "-q", "--stats", st, *mode)
        check_equal(rc, 0, f"lnc {lnc} {mode}: runs ({se})")
        if rc == 0:
            res[(lnc, len(mode))] = (np.load(os.path.join(o, "output_0.npy")), load_json(st).get("total_ns"))
if len(res) == 4:
    y = res[("1", 0)][0]
    check(np.allclose(y, np.exp(a * 0.5) * 3.0 + 1.0, rtol=1e-5, atol=1e-5), "LNC=1 output matches numpy")
    check(all(np.array_equal(v[0], y) for v in res.values()), "LNC=2 and functional outputs equal the LNC=1 output")
    t1, t2 = res[("1", 0)][1], res[("2", 0)][1]
    check(t2 < 0.7 * t1, f"LNC=2 is faster: {t2} ns vs {t1} ns at LNC=1")
finish()
