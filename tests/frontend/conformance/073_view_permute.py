# feature: .permute(dims) views: an HBM transpose through a strided DMA, 3-D permutes (on-chip keeps dim 0 first)
# input: a = rng.standard_normal((64, 48)).astype(np.float32)
# input: b = rng.standard_normal((8, 6, 4)).astype(np.float32)
# golden: a.T
# golden: b.transpose(0, 2, 1)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_permute(a, b):
    at = a.permute((1, 0))
    assert at.shape == (48, 64) and at.strides == (1, 48)
    out1 = nl.ndarray((48, 64), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=at)
    s = nl.ndarray((8, 6, 4), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=b)
    out2 = nl.ndarray((8, 4, 6), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=s.permute(0, 2, 1))
    return out1, out2
