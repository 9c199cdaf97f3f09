# feature: while loops (unrolled at compile time): conditions, break, continue, else
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    out = []
    n, steps = 27, 0
    while n != 1:  # Collatz
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    out.append(steps)
    i = 0
    while i < 10:
        i += 1
        if i % 3 == 0:
            continue
        if i == 8:
            break
        out.append(i)
    else:
        out.append("no break")
    j = 0
    while j < 3:
        j += 1
    else:
        out.append("else ran")
    return out


@nki.jit
def while_loops():
    return emit(compute())
