"""Host stand-in for `import nki` (the current NKI API): decorated kernels run in nki-sim (docs/python.md)."""
from nkisim._decorators import CURRENT_DECORATORS as _DECORATORS
from nkisim._standins import populate as _populate

globals().update(_DECORATORS)
from . import compiler, isa, language, typing  # noqa: E402,F401

_populate(globals(), "nki")
