"""Guide step 1: the straightforward tiled matmul. out[M, N] = lhs_t.T @ rhs, lhs_t [K, M], rhs [K, N].

For every [128, 512] output tile and every 128-row slice of K: fetch both operand tiles from HBM, multiply
into one PSUM bank (accumulating over K), then copy the bank to SBUF and store it.
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def mm(lhs_t, rhs):
    K, M = lhs_t.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        for j in nl.affine_range(N // 512):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.sequential_range(K // 128):
                lt = nl.ndarray((128, 128), dtype=lhs_t.dtype, buffer=nl.sbuf)
                rt = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lt, src=lhs_t[k * 128:(k + 1) * 128, i * 128:(i + 1) * 128])
                nisa.dma_copy(dst=rt, src=rhs[k * 128:(k + 1) * 128, j * 512:(j + 1) * 512])
                nisa.nc_matmul(dst=acc, stationary=lt, moving=rt)
            res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512], src=res)
    return out
