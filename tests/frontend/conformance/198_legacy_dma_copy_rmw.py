# feature: legacy nisa.dma_copy(dst=, src=, dst_rmw_op=np.add) adds src into dst (a DMA read-modify-write), also through an index-tile scatter
# input: a = rng.standard_normal((64, 32)).astype(np.float32)
# golden: np.where((np.arange(128) % 2 == 0)[:, None], np.repeat(a, 2, axis=0) + 1.0, 1.0).astype(np.float32)
# golden: a + a
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def rmw(a):
    out = nl.ndarray((128, 32), dtype=a.dtype, buffer=nl.shared_hbm)
    twice = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    nl.store(out, value=nisa.memset(shape=(128, 32), value=1.0, dtype=a.dtype))
    rows = nisa.iota(2 * nl.arange(64)[:, None], dtype=nl.int32)
    iy = nl.arange(32)[None, :]
    nisa.dma_copy(dst=out[rows, iy], src=x, dst_rmw_op=np.add)
    nl.store(twice, value=x)
    nisa.dma_copy(dst=twice, src=x, dst_rmw_op=nl.add)
    return out, twice
