from ..consts import TILE_P
from ..tiles import tile_bounds
from . import helpers


def rows(i):
    lo, hi = tile_bounds(i)
    return [lo, hi, TILE_P, helpers.twice(i)]
