# feature: rejected: an nki.jit kernel launched as kernel[0] (its size is the logical NeuronCore count), located at the size
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:19:20: error: zero_lnc[...]: an nki.jit launch grid size must be positive, got 0
import numpy as np

import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def zero_lnc(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out


if __name__ == "__main__":
    out = zero_lnc[0](np.zeros((128, 64), np.float32))
