"""Host stand-in for neuronxcc.nki.typing (legacy API)."""
from nkisim._standins import populate as _populate

_populate(globals(), "neuronxcc.nki.typing")
