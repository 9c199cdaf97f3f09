# feature: a partition vector [P] (tensor_reduce without keepdims) times a column [P, 1] is a [P, 1] tile, as legacy tracing gives (the free dims broadcast, partition first): it reduces over axis 1
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: b = rng.standard_normal((128, 1)).astype(np.float32)
# golden: (-a.sum(axis=1, keepdims=True) * b)[:, 0]
# tolerance: 1e-5 1e-5
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def column_times_vector(a, b):
    out = nl.ndarray((128,), dtype=nl.float32, buffer=nl.shared_hbm)
    r = nisa.tensor_reduce(np.add, nl.load(a), axis=(1,), dtype=nl.float32)  # [128]
    z = nl.multiply(nl.multiply(r, -1.0), nl.load(b))  # [128, 1]
    assert z.shape == (128, 1)
    nl.store(out, nisa.tensor_reduce(np.add, data=z, axis=(1,), dtype=nl.float32))
    return out
