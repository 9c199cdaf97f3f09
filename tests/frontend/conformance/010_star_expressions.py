# feature: star expressions: *args/**kwargs in calls and defs, [*a, *b], {**d}, starred unpacking
# golden: expect(compute())
import nki
from conflib import emit, expect


def f(a, b, *rest, scale=1, **opts):
    return [a, b, list(rest), scale, sorted(opts.items())]


def compute():
    xs = [1, 2, 3, 4]
    kw = {"scale": 5, "z": 9}
    first, *mid, last = xs
    merged = {**{"a": 1}, "b": 2, **{"a": 3}}
    return [f(*xs), f(0, *xs[1:3], **kw), [*xs, *range(2)], (*xs,), merged, first, mid, last, max(*xs), [*"ab"]]


@nki.jit
def star_expressions():
    return emit(compute())
