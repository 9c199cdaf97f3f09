# feature: with nl.no_reorder(): the block's instructions are emitted in order and no back-end pass moves them (ir::Op::keep_order)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: (a + 1.0) * 2.0
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def no_reorder(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    with nl.no_reorder():
        nisa.dma_copy(dst=t, src=a)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=t)
    return out
