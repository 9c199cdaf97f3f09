"""Legacy-API (`neuronxcc.nki`) kernels called from Python by tests/python."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit(mode="simulation")
def legacy_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(out, value=nl.add(x, y))
    return out


@nki.jit
def legacy_grid_copy(a):
    """out[i, j] = a[i, j] + 1 per program (i, j) of a 2-D launch grid."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    t = nl.load(a[i, j])
    nl.store(out[i, j], value=nl.add(t, 1.0))
    return out


def plain_scale(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(nl.load(a), 3.0))
    return out


rewrapped = nki.jit(plain_scale, mode="simulation")


@nki.jit(mode="simulation")
def ufunc_op(a, b, op):
    """max(a, b) or min(a, b), chosen by a numpy ufunc passed from the host (compared by identity)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    if op == np.maximum:
        nl.store(out, value=nl.maximum(x, y))
    else:
        nl.store(out, value=nl.minimum(x, y))
    return out
