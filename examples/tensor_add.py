"""Element-wise addition of two [M, N] tensors, tile by tile ([128, 512] tiles), in the current NKI API.

    nki-sim examples/tensor_add.py --inputs a.npy b.npy
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def tensor_add(a_input, b_input):
    M, N = a_input.shape
    TILE_P, TILE_F = 128, 512
    assert a_input.shape == b_input.shape, f"shapes differ: {a_input.shape} vs {b_input.shape}"
    assert M % TILE_P == 0 and N % TILE_F == 0, f"shape {a_input.shape} does not tile by ({TILE_P}, {TILE_F})"

    c_output = nl.ndarray((M, N), dtype=a_input.dtype, buffer=nl.shared_hbm)

    for m in nl.affine_range(M // TILE_P):
        for n in nl.affine_range(N // TILE_F):
            a_tile = nl.ndarray((TILE_P, TILE_F), dtype=a_input.dtype, buffer=nl.sbuf)
            b_tile = nl.ndarray((TILE_P, TILE_F), dtype=b_input.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_tile, src=a_input[m * TILE_P:(m + 1) * TILE_P, n * TILE_F:(n + 1) * TILE_F])
            nisa.dma_copy(dst=b_tile, src=b_input[m * TILE_P:(m + 1) * TILE_P, n * TILE_F:(n + 1) * TILE_F])

            c_tile = nl.ndarray((TILE_P, TILE_F), dtype=a_input.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=c_tile, data1=a_tile, data2=b_tile, op=nl.add)

            nisa.dma_copy(dst=c_output[m * TILE_P:(m + 1) * TILE_P, n * TILE_F:(n + 1) * TILE_F], src=c_tile)

    return c_output
