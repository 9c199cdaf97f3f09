"""Tiling plans for the mixed conformance kernels: an NKIObject dataclass, an Enum and tables."""
from dataclasses import dataclass
from enum import Enum

import nki.language as nl

from .tiles import tile_count


class Act(Enum):
    EXP = "exp"
    TANH = "tanh"
    RELU = "relu"


ACT_OPS = {Act.EXP: nl.exp, Act.TANH: nl.tanh, Act.RELU: nl.relu}


@dataclass
class Plan(nl.NKIObject):
    rows: int
    cols: int
    tile_p: int = 128
    tile_f: int = 512

    def __post_init__(self):
        assert self.rows % self.tile_p == 0, f"{self.rows} rows do not tile by {self.tile_p}"
        self.n_p = self.rows // self.tile_p
        self.n_f = tile_count(self.cols, self.tile_f)

    @property
    def ntiles(self):
        return self.n_p * self.n_f

    def tiles(self):
        return [(i, j) for i in range(self.n_p) for j in range(self.n_f)]

    def cols_of(self, j):
        lo = j * self.tile_f
        return lo, min(self.tile_f, self.cols - lo)
