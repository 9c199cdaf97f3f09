"""A kernel that reads a tile before all of it was written, for check= (tests/python/test_checks.py)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def read_before_write(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:448], src=a[:, 0:448])
    u = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=u, src=t)
    nisa.dma_copy(dst=out, src=u)
    return out
