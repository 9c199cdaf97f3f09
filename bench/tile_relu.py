"""A data-heavy kernel of small instructions: out = relu(x * 0.5) + 1 + y over [P, N] fp32 in [P, 64] tiles.

Per tile: 2 DMA loads, activation (relu with scale 0.5), tensor_scalar (+ 1), tensor_tensor (+ y), 1 DMA store;
[128, 131072] inputs give 2,048 tiles = 12,288 instructions over 192 MiB of HBM tensors (bench/run.py case d).

    nki-sim bench/tile_relu.py --inputs x.npy y.npy
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def tile_relu(x, y):
    P, N = x.shape
    TILE_F = 64
    out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(N // TILE_F):
        cols = slice(j * TILE_F, (j + 1) * TILE_F)
        xt = nl.ndarray((P, TILE_F), dtype=nl.float32, buffer=nl.sbuf)
        yt = nl.ndarray((P, TILE_F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[:, cols])
        nisa.dma_copy(dst=yt, src=y[:, cols])
        r = nl.ndarray((P, TILE_F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=r, op=nl.relu, data=xt, scale=0.5)
        nisa.tensor_scalar(dst=r, data=r, op0=nl.add, operand0=1.0)
        nisa.tensor_tensor(dst=r, data1=r, data2=yt, op=nl.add)
        nisa.dma_copy(dst=out[:, cols], src=r)
    return out
