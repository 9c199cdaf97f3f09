"""Host stand-in for nki.isa: identity markers for the instructions, enums and engines."""
from nkisim._standins import populate as _populate

from . import constants  # noqa: F401

_populate(globals(), "nki.isa")
