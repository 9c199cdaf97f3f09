"""Accumulation groups over single-copy stationary tiles (tests/e2e/test_interleave.py).

out[M, 512] = lhs_t.T @ rhs with K = 1024 (8 contraction steps) and M in blocks of 1024 rows: per block, the 8
stationary tiles of [128, 1024] are loaded once and read by 8 accumulation groups (one per 128 output rows); the
next block loads its tiles over them. `pinned` puts the groups in a no_reorder block.
"""
import nki
import nki.isa as nisa
import nki.language as nl


def groups(lt, rt, out, i):
    for m in range(8):
        acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
        for k in range(len(lt)):
            nisa.nc_matmul(dst=acc, stationary=lt[k][:, m * 128:(m + 1) * 128], moving=rt[k])
        res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=acc)
        nisa.dma_copy(dst=out[i * 1024 + m * 128:i * 1024 + (m + 1) * 128, :], src=res)


@nki.jit
def blocks(lhs_t, rhs, pinned=False):
    K, M = lhs_t.shape
    out = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    rt = []
    for k in range(K // 128):
        t = nl.ndarray((128, 512), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=rhs[k * 128:(k + 1) * 128, :])
        rt.append(t)
    for i in range(M // 1024):
        lt = []
        for k in range(K // 128):
            t = nl.ndarray((128, 1024), dtype=lhs_t.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=lhs_t[k * 128:(k + 1) * 128, i * 1024:(i + 1) * 1024])
            lt.append(t)
        if pinned:
            with nl.no_reorder():
                groups(lt, rt, out, i)
        else:
            groups(lt, rt, out, i)
    return out
