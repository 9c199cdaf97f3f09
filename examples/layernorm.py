"""LayerNorm over the last axis with bn_stats / bn_aggr: y = (x - mean) / sqrt(var + eps) * gamma + beta.

x is [M, D] float32 with D <= 512 or a multiple of 512; gamma and beta are [1, D] (broadcast to every
partition by the DMA). Per 128-row tile: bn_stats on each 512-column chunk writes 6 statistics per
partition side by side, bn_aggr folds them into (mean, variance), activation(rsqrt) with a scalar bias eps (trn2+)
gives 1/std, one tensor_scalar computes (x - mean) * (1/std) from the two [P, 1] columns and two
tensor_tensor ops apply gamma and beta.

    nki-sim examples/layernorm.py --inputs x.npy gamma.npy beta.npy [--arg eps=1e-5]
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def layernorm(x, gamma, beta, eps=1e-5):
    M, D = x.shape
    PMAX = nl.tile_size.pmax
    FMAX = nl.tile_size.bn_stats_fmax
    assert D <= FMAX or D % FMAX == 0, f"D must be <= {FMAX} or a multiple of it, got {D}"
    chunks = (D + FMAX - 1) // FMAX
    width = min(D, FMAX)
    out = nl.ndarray((M, D), dtype=x.dtype, buffer=nl.shared_hbm)

    for t in nl.affine_range((M + PMAX - 1) // PMAX):
        P = min(PMAX, M - t * PMAX)
        rows = slice(t * PMAX, t * PMAX + P)
        x_tile = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[rows, :])
        g_tile = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=g_tile, src=gamma.broadcast(0, P))
        b_tile = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=b_tile, src=beta.broadcast(0, P))

        stats = nl.ndarray((P, 6 * chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(chunks):
            nisa.bn_stats(dst=stats[:, 6 * c:6 * c + 6], data=x_tile[:, c * width:(c + 1) * width])
        mean_var = nl.ndarray((P, 2), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mean_var, data=stats)

        inv_std = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=inv_std, op=nl.rsqrt, data=mean_var[:, 1:2], bias=eps)

        normed = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=normed, data=x_tile, op0=nl.subtract, operand0=mean_var[:, 0:1],
                           op1=nl.multiply, operand1=inv_std)
        nisa.tensor_tensor(dst=normed, data1=normed, data2=g_tile, op=nl.multiply)
        y_tile = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y_tile, data1=normed, data2=b_tile, op=nl.add)
        nisa.dma_copy(dst=out[rows, :], src=y_tile)

    return out
