# feature: legacy nisa.nc_matmul(..., mask=) with a compile-time condition: when it is False no matmul is issued, so `acc += nc_matmul(...)` adds nothing and `p[...] = nc_matmul(...)` leaves p unchanged
# input: a = rng.standard_normal((512, 64)).astype(np.float32)
# input: b = rng.standard_normal((512, 96)).astype(np.float32)
# golden: a[0:384].T.astype(np.float64) @ b[0:384]
# golden: a[128:256].T.astype(np.float64) @ b[128:256]
# tolerance: 1e-4 1e-4
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def masked_matmul(a, b):
    acc_out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    last_out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((64, 96), dtype=nl.float32, buffer=nl.psum)
    last = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(4):
        s = nl.load(a[k * 128:(k + 1) * 128, :])
        m = nl.load(b[k * 128:(k + 1) * 128, :])
        acc += nisa.nc_matmul(s, m, mask=(k * 128 < 300))  # k = 0, 1, 2 only
        last[...] = nisa.nc_matmul(s, m, mask=(k == 1))  # written once, by k = 1
    nl.store(acc_out, value=nl.copy(acc))
    nl.store(last_out, value=nl.copy(last))
    return acc_out, last_out
