"""Tiled matmul in the legacy neuronxcc.nki dataflow style: result[M, N] = lhsT.T @ rhs, accumulated over K tiles
with `psum += nisa.nc_matmul(...)` onto an nl.zeros PSUM tile (the first accumulation overwrites).

    nki-sim examples/legacy_matmul.py --inputs lhsT.npy rhs.npy      # lhsT [K, M], rhs [K, N]
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.typing import tensor


@nki.jit(mode="simulation")
def legacy_matmul(lhsT: tensor, rhs: tensor):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2, "contraction dims differ"
    TK, TM, TN = 128, 128, 512
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    i_k = nl.arange(TK)[:, None]
    i_m = nl.arange(TM)[None, :]
    i_n = nl.arange(TN)[None, :]
    i_p = nl.arange(TM)[:, None]
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            res_psum = nl.zeros((TM, TN), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                lhsT_tile = nl.load(lhsT[k * TK + i_k, m * TM + i_m])
                rhs_tile = nl.load(rhs[k * TK + i_k, n * TN + i_n])
                res_psum += nisa.nc_matmul(lhsT_tile, rhs_tile)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TM + i_p, n * TN + i_n], value=res_sb)
    return result
