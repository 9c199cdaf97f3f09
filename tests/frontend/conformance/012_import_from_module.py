# feature: from-imports of the project's own modules (from mylib.tiles import f), resolved next to the kernel file
# golden: expect(compute())
import nki
from conflib import emit, expect
from mylib.tiles import tile_bounds, tile_count
from mylib.consts import NAMES as names, TILE_P


def compute():
    return [tile_count(1000), tile_count(1024, tile=256), tile_bounds(2), names["f"], TILE_P]


@nki.jit
def import_from_module():
    return emit(compute())
