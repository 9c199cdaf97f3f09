# feature: .select(dim, tensor) with a 1x1 SBUF index: a dynamic offset of the on-chip operand, read when the instruction runs (docs/dynamic-offsets.md)
# input: a = rng.standard_normal((128, 4, 64)).astype(np.float32)
# input: idx = np.array([[3]], dtype=np.int32)
# golden: a[:, 3, :] * 2.0
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def dynamic_select(a, idx):
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    i = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=o, data=t.select(1, i), op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=o)
    return out
