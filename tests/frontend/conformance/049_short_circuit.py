# feature: boolean short-circuit: and/or return operands and skip evaluating the right side
# golden: expect(compute())
import nki
from conflib import emit, expect

CALLS = []


def side(v):
    CALLS.append(v)
    return v


def compute():
    CALLS.clear()
    r = [side(0) and side(1), side(2) or side(3), side(0) or side(4) or side(5), side(6) and side(0) and side(7),
         not side(0) and side(8)]
    d = None
    safe = d is not None and d["k"]
    return [r, CALLS, safe]


@nki.jit
def short_circuit():
    return emit(compute())
