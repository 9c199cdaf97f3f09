# feature: slice objects: slice(), .start/.stop/.step, .indices(), slicing with them, nl.ds as a slice
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


def compute():
    s = slice(1, 9, 2)
    t = slice(None, None, -1)
    data = list(range(12))
    return [s.start, s.stop, s.step, data[s], data[t][:3], s.indices(5), slice(-3, None).indices(10), "abcdef"[slice(2, None)]]


@nki.jit
def slices():
    d = nl.ds(8, 4)
    assert (d.start, d.stop) == (8, 12), f"nl.ds(8, 4) is {d}"
    return emit(compute())
