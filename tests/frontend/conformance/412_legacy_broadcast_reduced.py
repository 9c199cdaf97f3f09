# feature: a [P] tile (a reduction over the only free axis, keepdims=False) broadcasts to [P, F] with .broadcast_to
# input: a = rng.standard_normal((128, 32)).astype(np.float32)
# golden: np.repeat(1.0 / a.sum(axis=1, keepdims=True), 16, axis=1)
# tolerance: 1e-4 1e-6
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def bcast(a):
    out = nl.ndarray((128, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    s = nisa.tensor_reduce(np.add, data=t, axis=(1,), dtype=nl.float32)
    r = (1.0 / s).broadcast_to((128, 16))
    nl.store(out, value=nl.copy(r))
    return out
