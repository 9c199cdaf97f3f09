# feature: list/dict/set comprehensions and generator expressions (nested, filtered, scoping)
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    n = 5
    squares = [i * i for i in range(n)]
    pairs = [(i, j) for i in range(3) for j in range(i) if (i + j) % 2]
    table = {f"k{i}": i ** 2 for i in range(4) if i != 2}
    uniq = sorted({x % 3 for x in range(10)})
    total = sum(x for x in squares if x > 3)
    nested = [[r * c for c in range(3)] for r in range(3)]
    flat = [v for row in nested for v in row]
    x = 100
    shadow = [x for x in range(3)]  # the comprehension's x does not leak
    closure = [lambda k=k: k * n for k in range(3)]
    return [squares, pairs, table, uniq, total, flat, shadow, x, [f() for f in closure], any(v > 3 for v in flat)]


@nki.jit
def comprehensions():
    return emit(compute())
