"""Host stand-in for nki.isa.constants."""
from nkisim._standins import populate as _populate

_populate(globals(), "nki.isa.constants")
