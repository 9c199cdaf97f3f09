# feature: nested def, closures over enclosing variables, nonlocal, late binding, closures in classes
# golden: expect(compute())
import nki
from conflib import emit, expect


def counter(start):
    count = start

    def inc(by=1):
        nonlocal count
        count += by
        return count
    return inc


def outer():
    x = "outer"

    def middle():
        def inner():
            return x + "!"
        return inner()
    x = "rebound"
    return middle()


def compute():
    c = counter(10)
    c()
    c(5)
    fns = []
    for i in range(3):
        def f():
            return i
        fns.append(f)
    return [c(), outer(), [f() for f in fns]]


@nki.jit
def nested_def_closures():
    return emit(compute())
