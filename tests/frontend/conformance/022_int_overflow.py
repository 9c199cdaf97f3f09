# feature: ints are 64-bit signed at compile time; a result outside [-2**63, 2**63) is a located OverflowError
# expect-error: {file}:10:13: error: integer overflow: the result does not fit in 64 bits (the compile-time evaluator uses 64-bit integers)
import nki
from conflib import emit


def compute():
    big = 2 ** 62 + (2 ** 62 - 1)  # 2**63 - 1: the largest int, fine
    small = -big - 1               # -2**63: fine
    return [big + 1, small]


@nki.jit
def int_overflow():
    return emit(compute())
