# feature: rejected: instantiating a class that does not inherit NKIObject inside a kernel ("classes must inherit NKIObject")
# expect-error: {file}:18:9: error: class 'Plain' cannot be used in an NKI kernel: classes must inherit NKIObject (class Plain(nl.NKIObject): ...)
import nki
import nki.language as nl
from conflib import emit


class Plain:
    def __init__(self, v):
        self.v = v


HOST = Plain(1)  # fine at module level (host code)


@nki.jit
def plain_class():
    p = Plain(3)
    return emit([p.v])
