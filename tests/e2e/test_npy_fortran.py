"""End-to-end: Fortran-order .npy inputs (what np.save writes for a transposed array, fortran_order: True) are read
in C order, 2D and 3D, little- and big-endian, as numpy.load reads them (issue 13 item 13)."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()
K = write_file(d, "add.py", '''import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def add(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(b.shape, b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out
''')
rng = np.random.default_rng(5)
for name, a, b in [
    ("2d", rng.standard_normal((64, 96)).astype(np.float32), rng.standard_normal((96, 64)).astype(np.float32).T),
    ("3d", rng.standard_normal((16, 3, 5)).astype(np.float32),
     np.asfortranarray(rng.standard_normal((16, 3, 5)).astype(np.float32))),
    ("3d big-endian", rng.standard_normal((8, 4, 6)).astype(np.float32),
     np.asfortranarray(rng.standard_normal((8, 4, 6)).astype(">f4"))),
    ("int32", rng.integers(-50, 50, (32, 7)).astype(np.int32), np.asfortranarray(rng.integers(-50, 50, (32, 7)).astype(np.int32))),
]:
    tag = name.replace(" ", "_")
    pb = save(d, f"b_{tag}.npy", b)
    check(np.load(pb).flags["F_CONTIGUOUS"] and not np.load(pb).flags["C_CONTIGUOUS"], f"{name}: the file is Fortran-order")
    out = os.path.join(d, f"o_{tag}")
    rc, so, se = run(K, "--inputs", save(d, f"a_{tag}.npy", a), pb, "-o", out, "-q")
    check_equal(rc, 0, f"{name}: runs ({se})")
    if rc == 0:
        y = np.load(os.path.join(out, "output_0.npy"))
        check(np.array_equal(y, a + np.load(pb).astype(a.dtype)), f"{name}: a + b with b read in numpy's order")
finish()
