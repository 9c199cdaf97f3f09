# feature: list slicing with negative indices and steps, slice assignment and deletion, negative indexing
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    a = list(range(10))
    out = [a[-1], a[-3:], a[:-7], a[::3], a[::-1], a[-2:2:-2], a[8:2:-3], a[100:], a[-100:2], a[5:5], a[slice(1, 8, 2)]]
    b = list(a)
    b[2:5] = ["x", "y"]
    c = list(a)
    c[::2] = [0] * 5
    d = list(a)
    del d[1::3]
    e = list(a)
    del e[-1]
    e[-1] = 99
    return out + [b, c, d, e]


@nki.jit
def list_slicing():
    return emit(compute())
