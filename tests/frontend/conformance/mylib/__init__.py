"""A project package used by the import conformance kernels."""
from .tiles import tile_count as count_tiles
from . import consts

VERSION = (1, 2)
