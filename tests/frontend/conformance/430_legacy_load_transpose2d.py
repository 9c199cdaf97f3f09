# feature: legacy nl.load_transpose2d of a [256, 128] HBM slice (on trn2 the DMA transposer, dma_transpose) and with a cast to bf16 (the transposer into a float32 tile, then a cast rounding to nearest even)
# input: a = rng.standard_normal((256, 192)).astype(np.float32)
# golden: a[0:256, 32:160].T
# golden: ((np.ascontiguousarray(a[0:128, 0:128].T).view(np.uint32).astype(np.uint64) + 0x7FFF + ((np.ascontiguousarray(a[0:128, 0:128].T).view(np.uint32) >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
# tolerance: 0 0
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def load_t(a):
    out = nl.ndarray((128, 256), dtype=a.dtype, buffer=nl.shared_hbm)
    cast = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load_transpose2d(a[0:256, 32:160])
    nl.store(out, value=t)
    b = nl.load_transpose2d(a[0:128, 0:128], dtype=nl.bfloat16)
    nl.store(cast, value=nl.copy(b, dtype=nl.float32))
    return out, cast
