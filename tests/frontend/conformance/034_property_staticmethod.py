# feature: @property with setter, @staticmethod, @classmethod on NKIObject classes
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class Shape(nl.NKIObject):
    def __init__(self, p, f):
        self._p = p
        self._f = f

    @property
    def size(self):
        return self._p * self._f

    @property
    def p(self):
        return self._p

    @p.setter
    def p(self, value):
        assert value <= 128, f"partition dim {value} > 128"
        self._p = value

    @staticmethod
    def ceil_div(a, b):
        return -(-a // b)

    @classmethod
    def square(cls, n):
        return cls(n, n)


def compute():
    s = Shape(64, 8)
    a = s.size
    s.p = 128
    q = Shape.square(4)
    return [a, s.size, s.p, Shape.ceil_div(10, 3), s.ceil_div(9, 3), q.size, type(q).__name__]


@nki.jit
def property_staticmethod():
    return emit(compute())
