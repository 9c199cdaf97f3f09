# feature: user dunder methods: __eq__ __hash__ __getitem__ __setitem__ __call__ __repr__ __str__ __len__ __contains__ __iter__ __add__ __lt__ __bool__
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class Vec(nl.NKIObject):
    def __init__(self, *xs):
        self.xs = list(xs)

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __getitem__(self, i):
        return self.xs[i]

    def __setitem__(self, i, v):
        self.xs[i] = v

    def __call__(self, k):
        return [x * k for x in self.xs]

    def __repr__(self):
        return f"Vec({', '.join(str(x) for x in self.xs)})"

    def __len__(self):
        return len(self.xs)

    def __contains__(self, v):
        return v in self.xs

    def __iter__(self):
        return iter(self.xs)

    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

    def __lt__(self, other):
        return sum(self.xs) < sum(other.xs)

    def __bool__(self):
        return any(self.xs)


def compute():
    a, b = Vec(1, 2, 3), Vec(1, 2, 3)
    c = Vec(0, 0)
    a[0] = 1
    seen = {a: "first"}
    return [a == b, a != c, seen[b], a[1], a[-1], a(2), repr(a), str(c), len(a), 2 in a, list(a), (a + b).xs,
            c < a, bool(c), bool(a), sorted([a, c])[0].xs, [x for x in b if x > 1]]


@nki.jit
def dunder_methods():
    return emit(compute())
