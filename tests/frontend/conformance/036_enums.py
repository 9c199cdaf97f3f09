# feature: Enum classes: .name, .value, ==/!=, iteration, lookup by value and name, auto(), methods, isinstance
# golden: expect(compute())
from enum import Enum, auto

import nki
from conflib import emit, expect


class Act(Enum):
    RELU = auto()
    GELU = auto()
    SILU = 10

    def pretty(self):
        return self.name.lower()


class Layout(Enum):
    ROW = "row"
    COL = "col"


def compute():
    a = Act.GELU
    return [a.name, a.value, Act.SILU.value, a == Act.GELU, a != Act.RELU, Act(10).name, Act["RELU"].value,
            [m.name for m in Act], len(list(Layout)), Layout("col").name, a.pretty(), isinstance(a, Act),
            Layout.ROW.value, Act.RELU in [Act.RELU, Act.SILU]]


@nki.jit
def enums():
    return emit(compute())
