"""Matrix products left running while later instructions execute (tests/e2e/test_matmul_overlap.py): the moving
tile is overwritten by the next DMA right after the first product, one PSUM tile is accumulated by two products
in a row, and both PSUM tiles are read back by the Vector Engine. Each product is 128 x 128 x 512, large enough
for the simulator to run it on its helper threads."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def matmul_overlap(a_t, b0, b1):
    K, M = a_t.shape
    N = b0.shape[1]
    out0 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    out1 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    a_tile = nl.ndarray((K, M), dtype=a_t.dtype, buffer=nl.sbuf)
    b_tile = nl.ndarray((K, N), dtype=b0.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_tile, src=a_t)
    nisa.dma_copy(dst=b_tile, src=b0)
    acc0 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    acc1 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc0, stationary=a_tile, moving=b_tile)
    nisa.dma_copy(dst=b_tile, src=b1)  # the moving operand of the product above, overwritten
    nisa.nc_matmul(dst=acc1, stationary=a_tile, moving=b_tile)
    nisa.nc_matmul(dst=acc1, stationary=a_tile, moving=b_tile, accumulate=True)
    c0 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    c1 = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=c0, src=acc0)
    nisa.tensor_copy(dst=c1, src=acc1)
    nisa.dma_copy(dst=out0, src=c0)
    nisa.dma_copy(dst=out1, src=c1)
    return out0, out1
