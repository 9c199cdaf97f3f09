# feature: @dataclass NKIObject subclasses: fields, defaults, field(default_factory), __post_init__, __eq__, __repr__, frozen
# golden: expect(compute())
from dataclasses import dataclass, field

import nki
import nki.language as nl
from conflib import emit, expect


@dataclass
class Config(nl.NKIObject):
    tile_p: int
    tile_f: int = 512
    names: list = field(default_factory=list)

    def __post_init__(self):
        self.elems = self.tile_p * self.tile_f


@dataclass(frozen=True)
class Point(nl.NKIObject):
    x: int = 0
    y: int = 0


@dataclass
class Extended(Config):
    depth: int = 2


def compute():
    c = Config(128)
    c.names.append("a")
    d = Config(128, names=["a"])
    e = Extended(64, 256, depth=3)
    p = Point(1, 2)
    try:
        p.x = 5
        frozen = False
    except Exception:
        frozen = True
    return [c.elems, c.tile_f, c == d, c != Config(64), repr(p), repr(Config(1, 2)), e.elems, e.depth, frozen, p.x]


@nki.jit
def dataclasses_kernel():
    return emit(compute())
