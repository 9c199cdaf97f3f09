# feature: functions as values: stored in lists/dicts, passed, returned, closures capturing loop variables, __name__
# golden: expect(compute())
import nki
from conflib import emit, expect


def double(x):
    return 2 * x


def square(x):
    return x * x


def make_adder(n):
    def add(x):
        return x + n
    return add


def apply_all(fns, x):
    return [f(x) for f in fns]


def compute():
    table = {"d": double, "s": square}
    adders = [make_adder(k) for k in range(3)]
    pipeline = [double, make_adder(10), square]
    v = 1
    for f in pipeline:
        v = f(v)
    return [apply_all([double, square], 5), table["s"](7), [a(1) for a in adders], v, double.__name__,
            callable(double), callable(3), max([3, -7, 5], key=abs)]


@nki.jit
def functions_as_values():
    return emit(compute())
