"""Causal (lower-triangular) masking of attention scores with affine_select on the GpSimd engine.

scores is [M, N] (any float dtype). Element (i, j) is kept when j <= i + diagonal and replaced by
mask_value (-inf by default) otherwise. For a 128-row tile starting at row r0 the affine value
(r0 + diagonal) + 1*p - 1*j is computed per element in int32 and compared with 0 (cmp_op=greater_equal).

    nki-sim examples/causal_mask.py --inputs scores.npy [--arg diagonal=0]
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def causal_mask(scores, diagonal=0, mask_value=-float("inf")):
    M, N = scores.shape
    PMAX = nl.tile_size.pmax
    out = nl.ndarray((M, N), dtype=scores.dtype, buffer=nl.shared_hbm)

    for t in nl.affine_range((M + PMAX - 1) // PMAX):
        P = min(PMAX, M - t * PMAX)
        rows = slice(t * PMAX, t * PMAX + P)
        tile = nl.ndarray((P, N), dtype=scores.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=scores[rows, :])
        masked = nl.ndarray((P, N), dtype=scores.dtype, buffer=nl.sbuf)
        nisa.affine_select(dst=masked, pattern=[[-1, N]], channel_multiplier=1, on_true_tile=tile,
                           on_false_value=mask_value, cmp_op=nl.greater_equal, offset=t * PMAX + diagonal)
        nisa.dma_copy(dst=out[rows, :], src=masked)

    return out
