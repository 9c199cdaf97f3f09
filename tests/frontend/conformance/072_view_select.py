# feature: .select(dim, index) drops a dimension (static index; negative counts from the end)
# input: a = rng.standard_normal((4, 32, 16)).astype(np.float32)
# golden: a[2]
# golden: a[:, -1, :]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_select(a):
    out1 = nl.ndarray((32, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=a.select(0, 2))
    s = nl.ndarray((4, 32, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=a)
    out2 = nl.ndarray((4, 16), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=s.select(1, -1))
    return out1, out2
