# feature: legacy nl.zeros PSUM tiles accumulated with += nc_matmul, copied into column slices with nl.copy and reduced into one column each (the forwarded copies and dropped fills of ir/forward.cpp keep the values)
# input: q = rng.standard_normal((128, 128)).astype(np.float32)
# input: kt = rng.standard_normal((128, 512)).astype(np.float32)
# golden: q.T.astype(np.float64) @ kt.astype(np.float64)
# golden: -np.stack([(q.T.astype(np.float64) @ kt[:, i * 128:(i + 1) * 128].astype(np.float64)).max(axis=1) for i in range(4)], axis=1)
# tolerance: 1e-4 1e-4
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki.language import par_dim


@nki.jit
def qk(q, kt):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    mx = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    ql = nl.load(q)
    res = nl.ndarray((par_dim(128), 512), dtype=nl.float32)
    negmax = nl.ndarray((par_dim(128), 4), dtype=nl.float32)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(128)[None, :]
    for i in nl.affine_range(4):
        kl = nl.load(kt[:, i * 128:(i + 1) * 128])
        ps = nl.zeros((par_dim(128), 128), dtype=np.float32, buffer=nl.psum)
        ps[...] += nisa.nc_matmul(moving=kl, stationary=ql)
        res[ip, i * 128 + jf] = nl.copy(ps, dtype=nl.float32)
        negmax[ip, i] = nisa.tensor_reduce(np.max, data=res[ip, i * 128 + jf], axis=(1,), dtype=nl.float32, negate=True)
    nl.store(out, value=res)
    nl.store(mx, value=negmax)
    return out, mx
