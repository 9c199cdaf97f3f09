# feature: .ap(pattern, offset) on HBM: any [stride, count] pattern over the flat storage, ignoring the view it is called on
# input: a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
# golden: a.reshape(-1)[5 + 64 * np.arange(16)[:, None] + 3 * np.arange(8)[None, :]]
# golden: a[:8, :4].T
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_hbm(a):
    v = a.slice(0, 10, 20).ap([[64, 16], [3, 8]], offset=5)  # .ap is not composable with the slice
    assert v.shape == (16, 8) and v.offset == 5
    out1 = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=v)
    out2 = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=a.ap([[1, 4], [32, 8]]))
    return out1, out2
