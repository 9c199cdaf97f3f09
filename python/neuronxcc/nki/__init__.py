"""Host stand-in for `import neuronxcc.nki` (the legacy NKI API): decorated kernels run in nki-sim."""
from nkisim._decorators import LEGACY_DECORATORS as _DECORATORS
from nkisim._standins import populate as _populate

globals().update(_DECORATORS)
from . import compiler, isa, language, typing  # noqa: E402,F401

_populate(globals(), "neuronxcc.nki")
