# feature: legacy nl.affine_range(n, precise_schedule=True) is accepted as a scheduling hint with no effect (the legacy signature took **kwargs; nki-samples' contributed pipelined_attention passes it)
# input: a = rng.standard_normal((3, 128, 16)).astype(np.float32)
# golden: a + 1.0
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def precise_schedule(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(3, precise_schedule=True):
        nl.store(out[i], value=nl.add(nl.load(a[i]), 1.0))
    return out
