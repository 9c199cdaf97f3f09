# feature: unknown attributes of modules and objects are named and located
# expect-error: {file}:10:28: error: module 'nki.language' has no attribute 'float33'
import nki
import nki.language as nl
from conflib import emit


@nki.jit
def attribute_errors():
    t = nl.ndarray((1, 1), nl.float33, buffer=nl.sbuf)
    return emit([1])
