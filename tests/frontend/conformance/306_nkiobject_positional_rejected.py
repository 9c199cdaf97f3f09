# feature: rejected: positional arguments to NKIObject.__init__ (it takes keywords only)
# expect-error: {file}:14:9: error: Section() takes keyword arguments only (NKIObject.__init__(**kwargs))
import nki
import nki.language as nl
from conflib import emit


class Section(nl.NKIObject):
    idx = None


@nki.jit
def nkiobject_positional_rejected():
    s = Section(5)
    return emit([s.idx])
