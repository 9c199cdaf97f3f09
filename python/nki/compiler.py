"""Host stand-in for nki.compiler: allocation hints and kernel decorators (host no-ops; the front end gives
them their meaning inside kernels)."""
from nkisim._standins import compiler_specials as _specials
from nkisim._standins import populate as _populate

_populate(globals(), "nki.compiler", _specials("nki.compiler"))
