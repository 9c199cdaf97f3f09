# feature: an NKIObject @dataclass constructed without a value for a field without default leaves it unset (nki-library builds configs that way); the other fields work
# golden: np.array([[3, 0, 7]], np.float32)
from dataclasses import dataclass

import nki
import nki.language as nl
from conflib import emit


@dataclass
class Dims(nl.NKIObject):
    a: int
    unused: int
    b: int = 7


@nki.jit
def nkiobject_dataclass_missing_field():
    d = Dims(a=3)
    return emit([d.a, hasattr(d, "unused"), d.b])
