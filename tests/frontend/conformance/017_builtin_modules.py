# feature: built-in modules: nki, nki.language, nki.isa, nki.typing, nki.isa.constants, math, enum, dataclasses, numpy, typing, functools
# golden: expect(compute())
import dataclasses
import enum
import functools
import math
import typing

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl
import nki.typing as nt
from conflib import emit, expect
from nki.isa import engine, reduce_cmd
from nki.isa.constants import dge_mode, oob_mode


def compute():
    return [math.floor(2.5), dataclasses.is_dataclass(3) if hasattr(dataclasses, "is_dataclass") else False,
            enum.Enum is not None, functools.reduce(lambda a, b: a * b, [1, 2, 3, 4]), typing.TYPE_CHECKING,
            int(np.prod((2, 3, 4))), math.pi]


def nki_names():
    # names only the front end knows; checked separately from the CPython golden
    return [engine.vector.name, reduce_cmd.reset.name, dge_mode.hwdge.name, oob_mode.skip.name,
            str(nl.float32), str(nl.bfloat16), nl.tile_size.pmax, str(nisa.engine.tensor)]


@nki.jit
def builtin_modules():
    assert nki_names() == ["vector", "reset", "hwdge", "skip", "float32", "bfloat16", 128, "engine.tensor"], nki_names()
    return emit(compute())
