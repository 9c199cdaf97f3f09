# feature: list methods: append extend insert remove pop index count reverse sort copy clear, in-place +=, aliasing
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    a = [5, 1, 4]
    a.append(3)
    a.extend([9, 2])
    a.insert(1, 7)
    a.insert(-1, 8)
    a.insert(100, 0)
    a.remove(4)
    p1 = a.pop()
    p2 = a.pop(0)
    p3 = a.pop(-2)
    i = a.index(9)
    c = a.count(1)
    b = a
    b += [6]
    a.reverse()
    r = list(a)
    a.sort()
    s = a.copy()
    a.sort(reverse=True, key=lambda v: v % 5)
    k = list(a)
    a.clear()
    return [p1, p2, p3, i, c, r, s, k, a, b == a, len(b)]


@nki.jit
def list_methods():
    return emit(compute())
