# feature: dicts keyed by Enum members and by dtypes (module-level tables indexed in the kernel)
# golden: expect(expected())
from enum import Enum

import nki
import nki.language as nl
from conflib import emit, expect


class Mode(Enum):
    FAST = 1
    EXACT = 2


TILE_BY_MODE = {Mode.FAST: 512, Mode.EXACT: 128}
BYTES = {"float32": 4, "bfloat16": 2}


def compute(mode):
    table = {m: m.value * 10 for m in Mode}
    return [TILE_BY_MODE[mode], table[Mode.EXACT], Mode.FAST in TILE_BY_MODE, len(table)]


@nki.jit
def dict_enum_keys():
    width = {nl.float32: 4, nl.bfloat16: 2}
    assert width[nl.bfloat16] == BYTES["bfloat16"]
    return emit(compute(Mode.FAST) + [width[nl.float32]])


def expected():
    return compute(Mode.FAST) + [4]
