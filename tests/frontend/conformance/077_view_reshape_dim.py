# feature: .reshape_dim(dim, shape) splits one dimension (one -1 allowed)
# input: a = rng.standard_normal((32, 48)).astype(np.float32)
# golden: a.reshape(32, 4, 12).transpose(0, 2, 1)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_reshape_dim(a):
    v = a.reshape_dim(1, (4, -1))
    assert v.shape == (32, 4, 12) and v.strides == (48, 12, 1)
    out = nl.ndarray((32, 12, 4), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=v.permute((0, 2, 1)))
    return out
