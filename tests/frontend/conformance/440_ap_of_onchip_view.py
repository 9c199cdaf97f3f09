# feature: .ap() on a view of an SBUF tensor: the offset counts from the view's start and the partition pair may give the view's own elements per partition (a helper deriving strides from the view's shape), as nki-library's TensorView does on a slice of a fused gate/up tile
# input: a = rng.standard_normal((8, 64)).astype(np.float32)
# input: b = rng.standard_normal((8, 16)).astype(np.float32)
# golden: a[:, 40:56]
# golden: np.concatenate([a[:, :40], a[:, 40:56] + b, a[:, 56:]], 1)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_of_onchip_view(a, b):
    t = nl.ndarray((8, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    bt = nl.ndarray((8, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=bt, src=b)
    upper = t.ap([[64, 8], [1, 32]], offset=32)  # columns 32..63
    w = upper.ap([[32, 8], [1, 16]], offset=8)  # columns 40..55 of t: 32 elements per partition of `upper`
    assert w.offset == 40
    out1 = nl.ndarray((8, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=w)
    nisa.tensor_tensor(dst=w, data1=w, data2=bt, op=nl.add)
    out2 = nl.ndarray((8, 64), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=t)
    return out1, out2
