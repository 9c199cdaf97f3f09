# feature: .ap(scalar_offset=s, indirect_dim=d) on a reshaped HBM tensor counts the dims of the reshaped shape: d=1 of (4, 16) shifts by s elements, d=0 by s rows of 16
# input: a = rng.standard_normal((64,)).astype(np.float32)
# input: s = np.array([[3]], dtype=np.int32)
# golden: a.reshape(4, 16)[0:1, 5:13]
# golden: a.reshape(4, 16)[3:4, 2:10]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_scalar_offset_reshaped(a, s):
    out1 = nl.ndarray((1, 8), nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((1, 8), nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=st, src=s)
    a2 = a.reshape((4, 16))
    t1 = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t1, src=a2.ap(pattern=[[16, 1], [1, 8]], offset=2, scalar_offset=st, indirect_dim=1))
    t2 = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t2, src=a2.ap(pattern=[[16, 1], [1, 8]], offset=2, scalar_offset=st, indirect_dim=0))
    nisa.dma_copy(dst=out1, src=t1)
    nisa.dma_copy(dst=out2, src=t2)
    return out1, out2
