# feature: import mylib.tiles as t, import mylib.consts (dotted names bind the top package)
# golden: expect(compute())
import nki
import mylib.consts
import mylib.tiles as t
from conflib import emit, expect


def compute():
    return [t.tile_count(2048), t.tile_bounds(1), mylib.consts.TILE_F, mylib.tiles.tile_count(10, 4)]


@nki.jit
def import_module_as():
    return emit(compute())
