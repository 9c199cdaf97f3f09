# feature: legacy API: nl.shared_constant(np.identity(128, dtype=np.int8), dtype=v.dtype) loaded with nl.load and used to transpose on the PE
# input: v = rng.integers(-64, 64, (128, 128)).astype(np.float32)
# golden: v.T
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def legacy_shared_constant(v):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    identity = nl.load(nl.shared_constant(np.identity(128, dtype=np.int8), dtype=v.dtype))
    vs = nl.load(v)
    t = nisa.nc_matmul(vs, identity)
    nl.store(out, value=nl.copy(t))
    return out
