"""An element-wise chain on the Scalar and Vector engines: out = exp(x * scale + bias) * mul + add.

dma_copy -> activation (exp, with a per-partition bias tile and an immediate scale) -> tensor_scalar
(multiply then add) -> dma_copy. `x` is [P, F] with P <= 128; `bias` is [P, 1] float32.

    nki-sim examples/exp_affine.py --inputs x.npy bias.npy --arg scale=0.25
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def exp_affine(x, bias, scale=0.5, mul=2.0, add=1.0):
    P, F = x.shape
    assert P <= nl.tile_size.pmax, f"at most {nl.tile_size.pmax} partitions, got {P}"
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)

    x_tile = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    bias_tile = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x_tile, src=x)
    nisa.dma_copy(dst=bias_tile, src=bias)

    e_tile = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=e_tile, op=nl.exp, data=x_tile, bias=bias_tile, scale=scale)

    y_tile = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=y_tile, data=e_tile, op0=nl.multiply, operand0=mul, op1=nl.add, operand1=add)

    nisa.dma_copy(dst=out, src=y_tile)
    return out
