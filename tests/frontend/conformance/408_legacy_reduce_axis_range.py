# feature: a legacy nisa.tensor_reduce(..., keepdims=True) with an axis past the tile's rank is the located range error, not a write past the shape (fuzz_kernel found it, issue 15)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: b = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:15:25: error: tensor_reduce: axis 2 is out of range for a 2-dimensional tensor
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def reduce_axis_past_rank(a, b):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    nl.store(out, value=nisa.tensor_reduce(np.add, x, axis=[1, 2], keepdims=True))
    return out
