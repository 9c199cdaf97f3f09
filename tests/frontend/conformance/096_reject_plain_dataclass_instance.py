# feature: rejected: using a host instance of a class not derived from NKIObject (a plain @dataclass) in a kernel
# expect-error: {file}:19:18: error: an instance of 'Settings' cannot be used in an NKI kernel: classes must inherit NKIObject (class Settings(nl.NKIObject): ...)
from dataclasses import dataclass

import nki
from conflib import emit


@dataclass
class Settings:
    tile: int = 128


SETTINGS = Settings()


@nki.jit
def plain_dataclass_instance():
    return emit([SETTINGS.tile])
