# feature: legacy nisa.dma_copy(dst=, src=, mask=) copies only where the index-tile mask holds; dst keeps its other elements
# input: a = rng.standard_normal((128, 8, 8)).astype(np.float32)
# golden: np.where((np.arange(128)[:, None, None] < 100) & (np.arange(8)[None, :, None] < 5) & (np.arange(8)[None, None, :] < 6), a, 2.0).astype(np.float32)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def masked(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.full((nl.par_dim(128), 8, 8), 2.0, dtype=nl.float32, buffer=nl.sbuf)
    i_p = nl.arange(128)[:, None, None]
    i_h = nl.arange(8)[None, :, None]
    i_w = nl.arange(8)[None, None, :]
    nisa.dma_copy(dst=t[:, 0:8, 0:8], src=a[0:128, 0:8, 0:8], mask=(i_p < 100) & (i_h < 5) & (i_w < 6))
    nl.store(out, value=t)
    return out
