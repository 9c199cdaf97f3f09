"""Helpers shared by the conformance kernels (imported from the kernel's directory, like any project module).

emit(values) writes Python values computed by a kernel's meta-program into a (1, N) float32 output;
expect(values) is the matching golden, computed by CPython from the same pure-Python code.
"""
import nki.isa as nisa
import nki.language as nl


def flatten(x):
    """None -> -1, bools -> 0/1, numbers, strings as code points, lists/tuples/dicts flattened in order."""
    if x is None:
        return [-1]
    if isinstance(x, bool):
        return [1 if x else 0]
    if isinstance(x, (int, float)):
        return [x]
    if isinstance(x, str):
        return [ord(c) for c in x]
    if isinstance(x, dict):
        out = []
        for k, v in x.items():
            out += flatten(k) + flatten(v)
        return out
    out = []
    for e in x:
        out += flatten(e)
    return out


def emit(values):
    """A (1, N) shared_hbm float32 output holding flatten(values), one memset per value."""
    vals = flatten(values)
    n = len(vals)
    out = nl.ndarray((1, n), nl.float32, buffer=nl.shared_hbm)
    tile = nl.ndarray((1, n), nl.float32, buffer=nl.sbuf)
    for i in range(n):
        nisa.memset(dst=tile[0:1, i:i + 1], value=float(vals[i]))
    nisa.dma_copy(dst=out, src=tile)
    return out


def expect(values):
    """The golden for emit(values)."""
    import numpy as np
    return np.array([flatten(values)], dtype=np.float32)
