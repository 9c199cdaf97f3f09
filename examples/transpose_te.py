"""Transpose of an [M, N] tensor on the Tensor Engine, tile by tile ([128, 128] tiles).

Each tile goes HBM -> SBUF, through nc_transpose on the PE array into PSUM (a matmul against the identity;
on trn2/trn3 the bit-exact transpose mode, so NaN payloads, infinities and -0.0 survive), back to SBUF with
a Vector Engine copy and out to its transposed place in HBM. Any dtype; the output keeps it.

    nki-sim examples/transpose_te.py --inputs x.npy
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def transpose_te(x):
    M, N = x.shape
    T = nl.tile_size.pmax  # 128: the PE array transposes up to [128, 128]
    assert M % T == 0 and N % T == 0, f"shape {x.shape} does not tile by ({T}, {T})"

    y = nl.ndarray((N, M), dtype=x.dtype, buffer=nl.shared_hbm)

    for i in nl.affine_range(M // T):
        for j in nl.affine_range(N // T):
            tile = nl.ndarray((T, T), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=tile, src=x[i * T:(i + 1) * T, j * T:(j + 1) * T])

            flipped = nl.ndarray((T, T), dtype=x.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=flipped, data=tile)  # PSUM destination: the Tensor Engine

            out = nl.ndarray((T, T), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=out, src=flipped)
            nisa.dma_copy(dst=y[j * T:(j + 1) * T, i * T:(i + 1) * T], src=out)

    return y
