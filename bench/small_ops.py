"""A kernel of many small instructions: [128, 64] fp32 tiles, a chain of tensor_scalar / tensor_tensor ops.

    nki-sim bench/small_ops.py --inputs x.npy --arg steps=5000
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def small_ops(x, steps=5000):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    for i in range(steps):
        nisa.tensor_scalar(dst=b, data=a, op0=nl.multiply, operand0=0.5, op1=nl.add, operand1=1.0)
        nisa.tensor_tensor(dst=a, data1=a, data2=b, op=nl.maximum)
    nisa.dma_copy(dst=out, src=a)
    return out
