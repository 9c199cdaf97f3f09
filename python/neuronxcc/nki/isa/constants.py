"""Host stand-in for neuronxcc.nki.isa.constants (legacy API)."""
from nkisim._standins import populate as _populate

_populate(globals(), "neuronxcc.nki.isa.constants")
