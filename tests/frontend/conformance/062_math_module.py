# feature: math module: ceil floor trunc sqrt gcd lcm log log2 log10 exp erf erfc pi e inf nan isclose isinf isnan prod factorial fabs copysign
# golden: expect(compute())
import math

import nki
from conflib import emit, expect


def compute():
    return [math.ceil(2.1), math.ceil(-2.1), math.floor(2.9), math.floor(-2.9), math.trunc(-2.9), math.sqrt(2),
            math.gcd(12, 18), math.lcm(4, 6), math.log(math.e), math.log(8, 2), math.log2(1024), math.log10(1000),
            math.exp(1), math.erf(0.5), math.erfc(0.5), math.pi, math.e, math.inf > 1e308, math.isnan(math.nan),
            math.isinf(-math.inf), math.isclose(1.0, 1.0 + 1e-10), math.prod([2, 3, 4]), math.factorial(10),
            math.fabs(-3), math.copysign(2, -0.0), math.tanh(0.5), math.cos(math.pi), math.ceil(1e15 + 0.5)]


@nki.jit
def math_module():
    return emit(compute())
