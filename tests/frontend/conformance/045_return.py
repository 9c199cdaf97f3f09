# feature: return: bare return, return from inside loops and with blocks, multiple values, implicit None
# golden: expect(compute())
import nki
from conflib import emit, expect


def first_over(xs, limit):
    for x in xs:
        if x > limit:
            return x
    return


def pair(n):
    return n, n * n


def nothing():
    pass


def compute():
    return [first_over([1, 5, 9], 4), first_over([1], 4), pair(3), nothing(), list(pair(2))]


@nki.jit
def return_kernel():
    return emit(compute())
