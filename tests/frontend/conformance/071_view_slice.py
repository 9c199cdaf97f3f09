# feature: .slice(dim, start, end, step) views on HBM and SBUF tensors (negative bounds, chained views compose)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a[16:80, 8:40:2][:, 4:12]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_slice(a):
    v = a.slice(0, 16, 80).slice(1, 8, -24, step=2)
    assert v.shape == (64, 16), v.shape
    t = nl.ndarray((64, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=v)
    part = t.slice(1, 4, 12)
    out = nl.ndarray((64, 8), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=part)
    return out
