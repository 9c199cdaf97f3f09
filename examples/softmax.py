"""Row softmax of an [M, N] float32 tensor, 128 rows per tile: y = exp(x - max(x)) / sum(exp(x - max(x))).

Per tile: tensor_reduce (maximum, negated) gives -max per row; activation computes exp(x + (-max)) with the
[P, 1] tile as bias and, with use_accumulator=True, sums each row in the ScalarE accumulator
(reduce_cmd=reset_reduce, read out through reduce_res); with use_accumulator=False a tensor_reduce (add)
sums the exponentials instead. reciprocal (VectorE) inverts the sums and tensor_scalar multiplies every row
by its [P, 1] inverse.

    nki-sim examples/softmax.py --inputs x.npy [--arg use_accumulator=False]
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def softmax(x, use_accumulator=True):
    M, N = x.shape
    PMAX = nl.tile_size.pmax
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)

    for t in nl.affine_range((M + PMAX - 1) // PMAX):
        P = min(PMAX, M - t * PMAX)
        rows = slice(t * PMAX, t * PMAX + P)
        x_tile = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[rows, :])

        neg_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=x_tile, axis=1, negate=True, keepdims=True)

        e_tile = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        sums = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        if use_accumulator:
            nisa.activation(dst=e_tile, op=nl.exp, data=x_tile, bias=neg_max, reduce_op=nl.add, reduce_res=sums,
                            reduce_cmd=nisa.reduce_cmd.reset_reduce)
        else:
            nisa.activation(dst=e_tile, op=nl.exp, data=x_tile, bias=neg_max)
            nisa.tensor_reduce(dst=sums, op=nl.add, data=e_tile, axis=1, keepdims=True)

        inv = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv, data=sums)

        y_tile = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y_tile, data=e_tile, op0=nl.multiply, operand0=inv)
        nisa.dma_copy(dst=out[rows, :], src=y_tile)

    return out
