# feature: tuples: construction, indexing, slicing, concatenation, repetition, comparison, count/index, hashing as dict keys
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    t = (1, 2, 3, 2)
    single = (5,)
    empty = ()
    d = {(0, 1): "a", (1, 0): "b"}
    return [t[0], t[-1], t[1:3], t[::-2], t + single, single * 3, len(empty), t.count(2), t.index(3),
            (1, 2) < (1, 3), (1, 2, 0) > (1, 2), (1, 2) == (1, 2), d[(1, 0)], tuple("ab"), tuple(range(3)),
            3 in t, hash((1, 2)) == hash((1, 2)), (1, (2, 3))[1][0], min((4, 1, 9)), sorted(t)]


@nki.jit
def tuples():
    return emit(compute())
