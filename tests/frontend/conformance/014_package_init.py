# feature: a package's __init__.py runs on import and re-exports names (from mylib import x)
# golden: expect(compute())
import nki
import mylib
from conflib import emit, expect
from mylib import VERSION, count_tiles, consts


def compute():
    return [VERSION, count_tiles(513), consts.TILE_P, mylib.count_tiles(5000, 1000)]


@nki.jit
def package_init():
    return emit(compute())
