# feature: augmented assignment for every operator, on names, attributes, subscripts and list (in place)
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class Acc(nl.NKIObject):
    def __init__(self):
        self.total = 0


def compute():
    out = []
    v = 100
    for op in range(12):
        x = v
        if op == 0: x += 7
        elif op == 1: x -= 7
        elif op == 2: x *= 7
        elif op == 3: x /= 8
        elif op == 4: x //= 7
        elif op == 5: x %= 7
        elif op == 6: x **= 2
        elif op == 7: x <<= 3
        elif op == 8: x >>= 3
        elif op == 9: x &= 7
        elif op == 10: x |= 7
        else: x ^= 7
        out.append(x)
    acc = Acc()
    for i in range(5):
        acc.total += i
    d = {"n": 1}
    d["n"] *= 10
    lst = [1]
    alias = lst
    lst += [2, 3]
    s = "ab"
    s *= 2
    t = (1,)
    t += (2,)
    return out + [acc.total, d["n"], alias, s, t]


@nki.jit
def augmented_assignment():
    return emit(compute())
