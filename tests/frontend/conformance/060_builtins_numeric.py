# feature: numeric builtins: min max (key=, default=) abs int float round divmod sum pow bool, int()/float() parsing
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    return [min(3, 1, 2), max([4, 9, 2]), min("bca"), max([], default=-1), min([(2, "b"), (1, "z")]), max(-3, 2, key=abs),
            abs(-7), abs(-2.5), int(3.99), int(-3.99), int("  12 "), int("0x1f", 16), int("101", 2), float("2.5"),
            float("-inf") < 0, float(7), round(3.14159, 3), round(1234.5, -2), round(0.5), round(1.5), round(-0.5),
            divmod(17, 5), divmod(-17, 5), divmod(7.5, 2), sum([1, 2, 3]), sum([0.5, 0.25], 1), pow(2, 8), bool(0.0)]


@nki.jit
def builtins_numeric():
    return emit(compute())
