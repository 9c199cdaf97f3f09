"""Host stand-in for neuronxcc.nki.isa (legacy API)."""
from nkisim._standins import populate as _populate

from . import constants  # noqa: F401

_populate(globals(), "neuronxcc.nki.isa")
