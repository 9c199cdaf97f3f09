# feature: lambdas: defaults, closures, passed as arguments (sorted key, map, filter), immediately called
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    add = lambda a, b=10: a + b
    scale = 3
    times = lambda v: v * scale
    compose = lambda f, g: lambda v: f(g(v))
    words = ["ccc", "a", "bb"]
    return [add(1), add(1, 2), times(4), compose(times, add)(1), sorted(words, key=lambda w: len(w)),
            list(map(lambda v: v + 1, [1, 2])), list(filter(lambda v: v % 2, range(6))), (lambda *a, **k: len(a) + len(k))(1, 2, z=3)]


@nki.jit
def lambdas():
    return emit(compute())
