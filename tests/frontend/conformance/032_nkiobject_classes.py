# feature: NKIObject classes: __init__, methods, class attributes, inheritance, super(), isinstance, instance attributes
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class TiledRange(nl.NKIObject):
    kind = "range"

    def __init__(self, size, tile):
        self.size = size
        self.tile = tile

    def count(self):
        return (self.size + self.tile - 1) // self.tile

    def bounds(self, i):
        lo = i * self.tile
        return lo, min(lo + self.tile, self.size)


class Strided(TiledRange):
    kind = "strided"

    def __init__(self, size, tile, stride):
        super().__init__(size, tile)
        self.stride = stride

    def count(self):
        return super().count() * self.stride


def compute():
    r = TiledRange(1000, 256)
    s = Strided(100, 30, 2)
    return [r.count(), [r.bounds(i) for i in range(r.count())], s.count(), s.kind, r.kind, TiledRange.kind,
            isinstance(s, TiledRange), isinstance(r, Strided), s.size, type(s).__name__]


@nki.jit
def nkiobject_classes():
    return emit(compute())
