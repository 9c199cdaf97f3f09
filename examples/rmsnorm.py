"""RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * w, bfloat16 in and out, fp32 statistics.

x is [M, D] bfloat16, w is [1, D] bfloat16 (broadcast to every partition by the DMA). Per 128-row tile:
activation_reduce squares x on the Scalar Engine and sums each row into the accumulator (fp32, read out
into a [P, 1] tile); activation(rsqrt) with scale=1/D and a scalar bias eps gives 1/rms (scalar biases need
trn2 or later); tensor_scalar multiplies x by it in fp32 and tensor_tensor applies w, rounding once to
bfloat16.

    nki-sim examples/rmsnorm.py --inputs x.npy:bfloat16 w.npy:bfloat16 [--arg eps=1e-5]
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def rmsnorm(x, w, eps=1e-6):
    M, D = x.shape
    PMAX = nl.tile_size.pmax
    assert w.shape == (1, D), f"w must have shape (1, {D}), got {w.shape}"
    out = nl.ndarray((M, D), dtype=x.dtype, buffer=nl.shared_hbm)

    for t in nl.affine_range((M + PMAX - 1) // PMAX):
        P = min(PMAX, M - t * PMAX)
        rows = slice(t * PMAX, t * PMAX + P)
        x_tile = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[rows, :])
        w_tile = nl.ndarray((P, D), dtype=w.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=w_tile, src=w.broadcast(0, P))

        squares = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        sum_sq = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation_reduce(dst=squares, op=nl.square, data=x_tile, reduce_op=nl.add, reduce_res=sum_sq)

        inv_rms = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=inv_rms, op=nl.rsqrt, data=sum_sq, scale=1.0 / D, bias=eps)

        scaled = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=scaled, data=x_tile, op0=nl.multiply, operand0=inv_rms)
        y_tile = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_tile, data1=scaled, data2=w_tile, op=nl.multiply)
        nisa.dma_copy(dst=out[rows, :], src=y_tile)

    return out
