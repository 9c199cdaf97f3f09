# feature: if/elif/else resolved at compile time, nested ifs, conditional expressions
# golden: expect(compute())
import nki
from conflib import emit, expect


def classify(n):
    if n < 0:
        return "neg"
    elif n == 0:
        return "zero"
    elif n < 10:
        if n % 2:
            return "small odd"
        else:
            return "small even"
    else:
        return "big"


def compute():
    return [classify(n) for n in (-5, 0, 3, 4, 50)] + ["yes" if 3 > 2 else "no", 1 if [] else 2, (0 or None) is None]


@nki.jit
def if_elif_else():
    return emit(compute())
