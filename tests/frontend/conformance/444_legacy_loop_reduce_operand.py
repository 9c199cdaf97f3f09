# feature: nl.loop_reduce's value is only for a subscript store (t[...] = nl.loop_reduce(...)): using it as a tile is a located error, not a silent copy
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:15:5: error: store: value must be a tile or a number, got 'loop_reduce result'
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def loop_reduce_operand(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(1):
        x = nl.load(a)
        y = nl.loop_reduce(x, np.add, [i])
    nl.store(out, y)
    return out
