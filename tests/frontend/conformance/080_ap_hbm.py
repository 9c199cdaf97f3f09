# feature: .ap(pattern, offset) on HBM: any [stride, count] pattern over the flat storage; the offset counts from the storage offset of the view it is called on (offset=None: that offset), as NkiTensor.ap documents
# input: a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
# golden: a.reshape(-1)[10 * 32 + 5 + 64 * np.arange(16)[:, None] + 3 * np.arange(8)[None, :]]
# golden: a[:8, :4].T
# golden: a[4:12, :4].T
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_hbm(a):
    v = a.slice(0, 10, 20).ap([[64, 16], [3, 8]], offset=5)  # strides address the storage, the offset composes
    assert v.shape == (16, 8) and v.offset == 10 * 32 + 5
    out1 = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=v)
    out2 = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=a.ap([[1, 4], [32, 8]]))
    out3 = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out3, src=a.slice(0, 4, 64).ap([[1, 4], [32, 8]]))  # offset=None: the view's own
    return out1, out2, out3
