# feature: .reshape(shape) views: HBM any equal-count shape (one -1), on-chip keeps the partition dim
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a.reshape(64, 128)
# golden: a.reshape(128, 8, 8)[:, 2, :]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_reshape(a):
    r = a.reshape((64, -1))
    assert r.shape == (64, 128) and a.reshape(2, 4096).shape == (2, 4096)
    out1 = nl.ndarray((64, 128), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=r)
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    t3 = t.reshape((128, 8, 8))
    out2 = nl.ndarray((128, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=t3[:, 2, :])
    return out1, out2
