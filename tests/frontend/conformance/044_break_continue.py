# feature: break and continue in unrolled for and while loops, nested loops, loop else skipped by break
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    out = []
    for i in range(10):
        if i % 2 == 0:
            continue
        if i > 7:
            break
        out.append(i)
    for i in range(3):
        for j in range(3):
            if j == i:
                break
            out.append((i, j))
    for i in range(5):
        if i == 2:
            break
    else:
        out.append("not reached")
    found = None
    for i in range(100):
        if i * i > 50:
            found = i
            break
    return out + [found]


@nki.jit
def break_continue():
    return emit(compute())
