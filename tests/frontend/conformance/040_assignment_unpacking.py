# feature: assignment: chained targets, tuple/list unpacking, nested unpacking, starred targets, swaps, attribute and subscript targets
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class Box(nl.NKIObject):
    pass


def compute():
    a = b = 3
    x, y = 1, 2
    x, y = y, x
    (p, q), [r, s] = (10, 20), [30, 40]
    head, *tail = "abc"
    *init, last = range(5)
    (m, (n, *o)), z = (1, (2, 3, 4)), 5
    box = Box()
    box.v = 7
    d = {}
    d["k"], box.w = 8, 9
    lst = [0, 0, 0]
    lst[0], lst[-1] = "L", "R"
    for i, (c, k) in enumerate([("a", 1), ("b", 2)]):
        pass
    return [a, b, x, y, p, q, r, s, head, tail, init, last, m, n, o, z, box.v, box.w, d, lst, i, c, k]


@nki.jit
def assignment_unpacking():
    return emit(compute())
