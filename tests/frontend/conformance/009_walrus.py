# feature: assignment expressions (walrus) in if, while, comprehensions
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    out = []
    data = [3, 8, 1, 9]
    if (n := len(data)) > 3:
        out.append(n)
    it = 0
    while (it := it + 1) < 4:
        out.append(it)
    big = [y for x in data if (y := x * 2) > 5]
    out.append(big)
    out.append(y)  # the walrus target binds in the enclosing scope
    return out


@nki.jit
def walrus():
    return emit(compute())
