# feature: NKIObject constructors: NKIObject.__init__(**kwargs) sets what it is given (class attributes are the defaults); an NKIObject @dataclass also takes non-field keywords; @dataclass keeps a written __init__; a @dataclass subclass of a class with __init__ gets a generated one
# golden: np.array([[5, 3, -1, 7, 2, 9, 4, 10, 11, 6, 1, 0]], np.float32)
from dataclasses import dataclass

import nki
import nki.language as nl
from conflib import emit


class Section(nl.NKIObject):
    idx = None
    offset = 3
    count: int = 0


@dataclass
class Plain(nl.NKIObject):
    idx = None
    size: int = 2


@dataclass
class Written(nl.NKIObject):
    a: int = 0

    def __init__(self, x):
        self.a = x * 2


class Base(nl.NKIObject):
    def __init__(self, v):
        self.v = v


@dataclass
class Derived(Base):
    p: int = 0
    q: int = 1


@nki.jit
def nkiobject_kwargs_init():
    s = Section(idx=5)
    t = Section(count=7)
    p = Plain(idx=9)
    w = Written(2)
    d = Derived(10, 11)
    e = Derived(q=6)
    return emit([s.idx, s.offset, t.idx, t.count, p.size, p.idx, w.a, d.p, d.q, e.q, hasattr(e, "p"), hasattr(e, "v")])
