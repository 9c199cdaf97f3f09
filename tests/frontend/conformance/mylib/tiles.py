import math

from .consts import TILE_F, TILE_P


def tile_count(n, tile=TILE_F):
    return math.ceil(n / tile)


def tile_bounds(i, tile=TILE_P):
    return i * tile, (i + 1) * tile
