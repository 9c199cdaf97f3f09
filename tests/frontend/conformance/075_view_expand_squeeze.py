# feature: .expand_dim(dim) and .squeeze_dim(dim) (not the partition dim on chip), negative dims
# input: a = rng.standard_normal((64, 16)).astype(np.float32)
# golden: a.reshape(64, 1, 16)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_expand_squeeze(a):
    e = a.expand_dim(1)
    assert e.shape == (64, 1, 16) and a.expand_dim(-1).shape == (64, 16, 1) and e.squeeze_dim(1).shape == (64, 16)
    t = nl.ndarray((64, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    t3 = t.expand_dim(1)
    assert t3.shape == (64, 1, 16) and t3.squeeze_dim(-2).shape == (64, 16)
    out = nl.ndarray((64, 1, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t3)
    return out
