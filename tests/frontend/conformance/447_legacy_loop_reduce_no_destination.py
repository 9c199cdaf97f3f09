# feature: `b = nl.loop_reduce(x, ...)` where b holds no tile yet is a located error at the assignment (the reduction needs b's tile as its other input)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:14:9: error: loop_reduce: 'y' must already hold the tile to reduce into (e.g. y = nl.zeros(...) before the loop), got 'nothing'
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def loop_reduce_no_destination(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(1):
        x = nl.load(a)
        y = nl.loop_reduce(x, np.add, [i])
    nl.store(out, y)
    return out
