"""Host stand-in for neuronxcc.nki.language (legacy API); see nki.language."""
from nkisim._standins import populate as _populate

_populate(globals(), "neuronxcc.nki.language")
