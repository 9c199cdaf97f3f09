# feature: a dma_transpose whose source was just written by the Vector engine is triggered from an engine that may start it (not Vector: the instruction table allows Sync, Scalar, GpSimd)
# input: a = rng.standard_normal((16, 64)).astype(np.float32)
# golden: (a * 2.0).T
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def dma_transpose_after_vector(a):
    out = nl.ndarray((64, 16), nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((16, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=a)
    nisa.tensor_scalar(dst=s, data=s, op0=nl.multiply, operand0=2.0, engine=nisa.engine.vector)
    t = nl.ndarray((64, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t, src=s)
    nisa.dma_copy(dst=out, src=t)
    return out
