"""Inclusive prefix sum along the last axis with tensor_tensor_scan, 512 columns per instruction.

x is [M, N] float32 with N a multiple of 512. The scan computes r = (ones[j] * r) + x[j] per partition; each
512-column chunk starts from the last column of the previous chunk (a [P, 1] view passed as `initial`),
the first from 0.0.

    nki-sim examples/prefix_sum.py --inputs x.npy
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def prefix_sum(x):
    M, N = x.shape
    PMAX = nl.tile_size.pmax
    CHUNK = 512
    assert N % CHUNK == 0, f"N must be a multiple of {CHUNK}, got {N}"
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)

    for t in nl.affine_range((M + PMAX - 1) // PMAX):
        P = min(PMAX, M - t * PMAX)
        rows = slice(t * PMAX, t * PMAX + P)
        x_tile = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[rows, :])
        ones = nl.ndarray((P, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=ones, value=1.0)

        sums = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        for c in range(N // CHUNK):
            cols = slice(c * CHUNK, (c + 1) * CHUNK)
            initial = 0.0 if c == 0 else sums[:, c * CHUNK - 1:c * CHUNK]
            nisa.tensor_tensor_scan(dst=sums[:, cols], data0=ones, data1=x_tile[:, cols], initial=initial,
                                    op0=nl.multiply, op1=nl.add)
        nisa.dma_copy(dst=out[rows, :], src=sums)

    return out
