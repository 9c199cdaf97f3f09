"""Guide step 3: fetch every operand tile once. rhs stays in SBUF for the whole kernel (K/128 x N/512 tiles,
loaded up front); the K/128 lhs tiles of one output row block are loaded once and serve all N/512 output
tiles of that row block.
"""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def mm(lhs_t, rhs):
    K, M = lhs_t.shape
    _, N = rhs.shape
    KT, NT = K // 128, N // 512
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    rt = nl.ndarray((128, KT, N), dtype=rhs.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(KT):
        for j in nl.affine_range(NT):
            nisa.dma_copy(dst=rt[:, k, j * 512:(j + 1) * 512], src=rhs[k * 128:(k + 1) * 128, j * 512:(j + 1) * 512])
    for i in nl.affine_range(M // 128):
        lt = nl.ndarray((128, KT, 128), dtype=lhs_t.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            nisa.dma_copy(dst=lt[:, k, :], src=lhs_t[k * 128:(k + 1) * 128, i * 128:(i + 1) * 128])
        for j in nl.affine_range(NT):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.sequential_range(KT):
                nisa.nc_matmul(dst=acc, stationary=lt[:, k, :], moving=rt[:, k, j * 512:(j + 1) * 512])
            res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512], src=res)
    return out
