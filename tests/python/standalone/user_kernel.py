"""A kernel module outside any package, importing a library package the host has imported (mylib)."""
import nki
import nki.language as nl
import nki.isa as nisa

from mylib.ops import scaled, shifted


def _run(a, helper, *extra):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    helper(u, t, *extra)
    nisa.dma_copy(dst=out, src=u)
    return out


@nki.jit
def triple(a):
    return _run(a, scaled, 3.0)


@nki.jit
def shift(a):
    return _run(a, shifted)
