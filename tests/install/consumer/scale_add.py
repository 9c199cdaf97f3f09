# out = a * 2 + 1 on one [128, 64] tile (the install test's consumer runs it through the public C++ API).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def scale_add(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=1.0)
    nisa.dma_copy(dst=out, src=t)
    return out
