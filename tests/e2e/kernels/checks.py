"""Kernels that are wrong on purpose, one kind of mistake each, for --check (tests/e2e/test_checks.py,
docs/checks.md). Each runs to the end with NaN somewhere in its output; --check names the line and the tensor."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def read_before_write(a):
    """Loads only columns 0:448 of the tile, then copies all 512 columns."""
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    u = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:448], src=a[:, 0:448])
    nisa.tensor_copy(dst=u, src=t)
    nisa.dma_copy(dst=out, src=u)
    return out


@nki.jit
def short_loop(a):
    """Copies a [512, 64] tensor tile by tile, but the loop stops one tile short."""
    M, N = a.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128 - 1):
        t = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
    return out


@nki.jit
def accumulate_fresh(a_t, b):
    """out = a_t.T @ b, but the only matmul accumulates onto a PSUM tile nothing wrote."""
    K, M = a_t.shape
    _, N = b.shape
    st = nl.ndarray((K, M), dtype=nl.float32, buffer=nl.sbuf)
    mv = nl.ndarray((K, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=st, src=a_t)
    nisa.dma_copy(dst=mv, src=b)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=st, moving=mv, accumulate=True)
    r = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=acc)
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=r)
    return out


@nki.jit
def writes_input(a):
    """Doubles a, but stores the result back into its input instead of its output."""
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=a, src=t)
    return out


@nki.jit
def stationary_partial(a_t, b, store_all=True):
    """A matmul whose stationary has only its columns 0:64 loaded: result rows 64:128 are garbage. Correct when
    only rows 0:64 are stored (store_all=False)."""
    K, M = a_t.shape
    _, N = b.shape
    st = nl.ndarray((K, M), dtype=nl.float32, buffer=nl.sbuf)
    mv = nl.ndarray((K, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=st[:, 0:64], src=a_t[:, 0:64])
    nisa.dma_copy(dst=mv, src=b)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=st, moving=mv)
    r = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=acc)
    out = nl.ndarray((M if store_all else 64, N), dtype=nl.float32, buffer=nl.shared_hbm)
    if store_all:
        nisa.dma_copy(dst=out, src=r)
    else:
        nisa.dma_copy(dst=out, src=r[0:64, :])
    return out
