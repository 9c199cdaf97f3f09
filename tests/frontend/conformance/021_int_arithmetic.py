# feature: int arithmetic with Python semantics: + - * / // % ** << >> & | ^ ~, negative operands, pow with modulus
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    out = []
    for a in (17, -17, 5, -5, 0, 123456789):
        for b in (3, -3, 7):
            out += [a + b, a - b, a * b, a / b, a // b, a % b, divmod(a, b)]
            out += [a << 3, a >> 2, a & b, a | b, a ^ b, ~a, -a, +a, abs(a)]
    out += [2 ** 10, 2 ** -2, (-2) ** 3, 7 ** 0, 10 ** 15 // 10 ** 14, pow(3, 4), pow(2, 10, 1000), pow(-3, 3, 7)]
    out += [True + True, True * 5, False - 1, 5 // True, 0x1F, 0o17, 0b101, 1_000_000, int("-42"), int("ff", 16)]
    out += [(2 ** 62) // 3, (-(2 ** 62) * 2) // 2, (1 << 62) >> 61, int(7.9), int(-7.9), round(7.5), round(8.5), round(-2.5)]
    return out


@nki.jit
def int_arithmetic():
    return emit(compute())
