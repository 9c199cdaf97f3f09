# feature: float arithmetic (IEEE doubles at compile time): mixed int/float, floor division and modulo signs, inf/nan, repr
# golden: expect(compute())
import math

import nki
from conflib import emit, expect


def compute():
    out = []
    for a in (7.5, -7.5, 0.1, 3):
        for b in (2, -2.5, 0.3):
            out += [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, divmod(a, b)]
    inf = float("inf")
    out += [inf > 1e308, -inf < -1e308, math.isnan(inf - inf), inf * 0 != inf * 0, 1e308 * 10 == inf]
    out += [0.1 + 0.2 == 0.3, abs(0.1 + 0.2 - 0.3) < 1e-15, 1 / 3, 2 ** 0.5, (-8) ** (1 / 3) if False else 0, 3.0 == 3]
    out += [len(repr(0.1)), len(str(1e22)), len(repr(1 / 3)), float("1e-3"), float("-inf") < 0, round(2.675, 2)]
    out += [int(1e15), math.floor(-0.5), math.ceil(-0.5), 7 // 2.0, -7 % 2.0, 5e-324 > 0]
    return out


@nki.jit
def float_arithmetic():
    return emit(compute())
