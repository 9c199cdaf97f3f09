# feature: .flatten_dims(start, end) merges contiguous dimensions start..end (inclusive)
# input: a = rng.standard_normal((4, 32, 16)).astype(np.float32)
# golden: a.reshape(128, 16)
# golden: a.reshape(4, 512)[:, ::2]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_flatten_dims(a):
    f = a.flatten_dims(0, 1)
    assert f.shape == (128, 16)
    out1 = nl.ndarray((128, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=f)
    g = a.flatten_dims(1, 2)
    out2 = nl.ndarray((4, 256), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=g.slice(1, 0, 512, 2))
    return out1, out2
