# feature: rejected: reading a field an NKIObject @dataclass was constructed without (located AttributeError)
# expect-error: {file}:19:18: error: 'Dims' object has no attribute 'unused'
from dataclasses import dataclass

import nki
import nki.language as nl
from conflib import emit


@dataclass
class Dims(nl.NKIObject):
    a: int
    unused: int


@nki.jit
def nkiobject_dataclass_unset_field_read():
    d = Dims(a=3)
    return emit([d.unused])
