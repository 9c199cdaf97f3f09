# feature: nl.loop_reduce's value is only for a store into a destination (t[...] = or b = nl.loop_reduce(...)): used as a tile it is a located error, not a silent copy
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:14:9: error: store: value must be a tile or a number, got 'loop_reduce result'
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def loop_reduce_operand(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(1):
        x = nl.load(a)
        nl.store(out, nl.loop_reduce(x, np.add, [i]))
    return out
