"""Host stand-in for nki.typing (annotations such as tensor[128, 512])."""
from nkisim._standins import populate as _populate

_populate(globals(), "nki.typing")
