# feature: NkiTensor.reshape(shape=...) and .permute(dims=...) take their argument by keyword, as the NkiTensor API names it
# input: a = rng.standard_normal((2, 4, 8)).astype(np.float32)
# golden: a.reshape(8, 8)
# golden: a.transpose(0, 2, 1)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def flat(a):
    out = nl.ndarray((8, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    src = a.reshape(shape=(8, 8))
    t = nl.load(src)
    nl.store(out.reshape(shape=(8, 8)), value=t)
    out2 = nl.ndarray((2, 8, 4), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=a.permute(dims=(0, 2, 1)))
    return out, out2
