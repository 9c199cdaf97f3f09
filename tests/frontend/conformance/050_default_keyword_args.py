# feature: helper arguments: defaults (evaluated once), keyword arguments, keyword-only (*) and positional-only (/) parameters, **kwargs
# golden: expect(compute())
import nki
from conflib import emit, expect


def tile(n, size=128, *, align=32, name="t"):
    return [n, size, align, name]


def pos_only(a, b, /, c=3):
    return a + b + c


def collect(item, acc=[]):
    acc.append(item)
    return list(acc)


def opts(**kw):
    return sorted(kw.items())


def compute():
    return [tile(1), tile(2, 64), tile(3, align=16), tile(n=4, name="u", size=8), pos_only(1, 2), pos_only(1, 2, c=10),
            collect(1), collect(2), opts(b=2, a=1)]


@nki.jit
def default_keyword_args():
    return emit(compute())
