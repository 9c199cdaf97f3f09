"""Tiled matrix multiplication C = A @ B on the Tensor Engine, accumulating over K in PSUM.

The Tensor Engine contracts over the partition dimension (nc_matmul computes stationary.T @ moving), so
the kernel takes A already transposed, as the NKI tutorials do: a_t = A.T of shape [K, M], b of shape
[K, N]; the result C is [M, N] in float32. Each [128, 512] output tile accumulates K / 128 matmuls in one
PSUM bank (the first overwrites, the rest accumulate: accumulate= is inferred), is copied to SBUF by the
Vector Engine and stored.

    nki-sim examples/matmul_bf16.py --inputs a_t.npy:bfloat16 b.npy:bfloat16
"""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def matmul_bf16(a_t, b):
    K, M = a_t.shape
    K_b, N = b.shape
    assert K == K_b, f"contraction sizes differ: a_t is {a_t.shape}, b is {b.shape}"
    TILE_K = nl.tile_size.pmax  # 128: the contraction runs over partitions
    TILE_M = nl.tile_size.gemm_stationary_fmax  # 128: stationary free size = output partitions
    TILE_N = nl.tile_size.gemm_moving_fmax  # 512: one PSUM bank of float32
    assert K % TILE_K == 0 and M % TILE_M == 0 and N % TILE_N == 0, "shapes must tile by (128, 128, 512)"

    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)

    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for k in nl.sequential_range(K // TILE_K):
                a_tile = nl.ndarray((TILE_K, TILE_M), dtype=a_t.dtype, buffer=nl.sbuf)
                b_tile = nl.ndarray((TILE_K, TILE_N), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a_tile, src=a_t[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=b_tile, src=b[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=acc, stationary=a_tile, moving=b_tile)

            c_tile = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=c_tile, src=acc)
            nisa.dma_copy(dst=c[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=c_tile)

    return c
