# feature: compile-time numpy (np.zeros, item assignment, scipy.linalg.circulant, np.eye, np.kron, astype, arange, reshape, tile, .T) saved with np.save into a tempfile.NamedTemporaryFile (a virtual file) and loaded by nl.shared_constant(f.name): a permutation matrix used in a matmul, and an index table
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a.T @ np.kron(np.eye(2), np.roll(np.eye(64), 1, axis=0))
# golden: np.tile(np.arange(64, dtype=np.float32).reshape(2, 32), (4, 1)).T
from tempfile import NamedTemporaryFile

import numpy as np
from scipy.linalg import circulant

import nki
import nki.isa as nisa
import nki.language as nl


def rotation_file(block, blocks):
    base = np.zeros(block)
    base[1 % block] = 1
    out = np.kron(np.eye(blocks), circulant(base)).astype(np.float32)
    with NamedTemporaryFile(suffix=".npy", delete=False) as f:
        np.save(f, out)
    return f.name


@nki.jit
def shared_constant_permutation(a):
    out = nl.ndarray((64, 128), nl.float32, buffer=nl.shared_hbm)
    idx_out = nl.ndarray((32, 8), nl.float32, buffer=nl.shared_hbm)
    perm = nl.shared_constant(rotation_file(64, 2))
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    p = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=p, src=perm)
    ps = nl.ndarray((64, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=t, moving=p)
    r = nl.ndarray((64, 128), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=ps)
    nisa.dma_copy(dst=out, src=r)
    idx = np.tile(np.arange(64).astype(np.float32).reshape((2, 32)), (4, 1)).T
    c = nl.shared_constant(idx)
    s = nl.ndarray((32, 8), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=c)
    nisa.dma_copy(dst=idx_out, src=s)
    return out, idx_out
