# feature: legacy nisa.nc_matmul(x, identity, is_transpose=True) returns a PSUM tile of x's dtype holding x transposed
# input: a = rng.standard_normal((128, 128)).astype(np.float32)
# golden: a.T.astype(np.float16).astype(np.float32)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def transpose_mode(a):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a, dtype=nl.float16)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(128)[None, :]
    ident = nl.equal(nisa.iota(i_p - i_f, dtype=nl.int32), 0, dtype=nl.float16)
    t = nisa.nc_matmul(x, ident, is_transpose=True)
    nl.store(out, value=nl.copy(t, dtype=nl.float32))
    return out
