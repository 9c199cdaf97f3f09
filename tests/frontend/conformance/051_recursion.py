# feature: recursion in compile-time helpers (fibonacci, recursive tiling splits, mutual recursion)
# golden: expect(compute())
import nki
from conflib import emit, expect


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def split(lo, hi, max_tile):
    if hi - lo <= max_tile:
        return [(lo, hi)]
    mid = (lo + hi) // 2
    return split(lo, mid, max_tile) + split(mid, hi, max_tile)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def compute():
    return [fib(15), split(0, 1000, 128), is_even(10), is_odd(7), depth(500)]


@nki.jit
def recursion():
    return emit(compute())
