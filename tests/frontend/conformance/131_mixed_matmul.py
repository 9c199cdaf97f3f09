# feature: mixed: a tiled matmul (PSUM accumulation over K tiles) driven by a config NKIObject, a tile-list comprehension, a recursive helper and transposed HBM views
# input: at = rng.standard_normal((256, 128)).astype(np.float32)
# input: b = rng.standard_normal((256, 384)).astype(np.float32)
# tolerance: 1e-3 1e-3
# golden: at.T @ b
import math

import nki
import nki.isa as nisa
import nki.language as nl


class MatmulConfig(nl.NKIObject):
    def __init__(self, k, m, n, tile_k=128, tile_n=128):
        self.k, self.m, self.n = k, m, n
        self.tile_k, self.tile_n = tile_k, tile_n

    def k_tiles(self):
        return [nl.ds(t * self.tile_k, self.tile_k) for t in range(math.ceil(self.k / self.tile_k))]

    def n_tiles(self):
        return halves(0, self.n, self.tile_n)


def halves(lo, hi, size):
    """Splits [lo, hi) recursively into chunks of at most `size`."""
    if hi - lo <= size:
        return [(lo, hi)]
    mid = lo + (hi - lo) // 2 // size * size or lo + size
    return halves(lo, mid, size) + halves(mid, hi, size)


@nki.jit
def mixed_matmul(at, b):
    K, M = at.shape
    _, N = b.shape
    cfg = MatmulConfig(K, M, N)
    out = nl.ndarray((M, N), nl.float32, buffer=nl.shared_hbm)
    stationary = []
    for ks in cfg.k_tiles():
        s = nl.ndarray((cfg.tile_k, M), at.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=at[ks, :])
        stationary.append(s)
    for lo, hi in cfg.n_tiles():
        acc = nl.ndarray((M, hi - lo), nl.float32, buffer=nl.psum)
        for s, ks in zip(stationary, cfg.k_tiles()):
            mv = nl.ndarray((cfg.tile_k, hi - lo), b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=mv, src=b[ks, lo:hi])
            nisa.nc_matmul(dst=acc, stationary=s, moving=mv)
        res = nl.ndarray((M, hi - lo), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=acc)
        nisa.dma_copy(dst=out[:, lo:hi], src=res)
    return out
