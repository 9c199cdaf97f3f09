# feature: .ap(vector_offset=idx) on an HBM tensor reshaped to 1-D gathers single elements (rows of the reshaped shape, not of the allocation)
# input: a = rng.standard_normal((4, 16)).astype(np.float32)
# input: idx = np.array([[5], [63], [0], [17], [40], [9], [33], [2]], dtype=np.uint32)
# golden: a.reshape(64)[idx[:, 0]].reshape(8, 1)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_vector_offset_reshaped(a, idx):
    out = nl.ndarray((8, 1), nl.float32, buffer=nl.shared_hbm)
    it = nl.ndarray((8, 1), nl.uint32, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    flat = a.reshape((64,))
    t = nl.ndarray((8, 1), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat.ap([[1, 8], [1, 1]], offset=0, vector_offset=it, indirect_dim=0))
    nisa.dma_copy(dst=out, src=t)
    return out
