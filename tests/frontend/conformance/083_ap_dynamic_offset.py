# feature: .ap(scalar_offset=...) on an on-chip tensor: the Vector engine reads the offset from SBUF when tensor_copy runs and copies row idx of every partition (indirect_dim=1; docs/dynamic-offsets.md)
# input: a = rng.standard_normal((128, 4, 64)).astype(np.float32)
# input: idx = np.array([[2]], dtype=np.int32)
# golden: a[:, 2, :]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_dynamic_offset(a, idx):
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    i = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=t.ap([[256, 128], [1, 64]], scalar_offset=i, indirect_dim=1))
    nisa.dma_copy(dst=out, src=o)
    return out
