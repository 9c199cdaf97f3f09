"""Host stand-in for neuronxcc.nki.compiler (legacy API): sbuf / psum modulo allocation and kernel
decorators, host no-ops (the front end gives them their meaning inside kernels)."""
from nkisim._standins import compiler_specials as _specials
from nkisim._standins import populate as _populate

_populate(globals(), "neuronxcc.nki.compiler", _specials("neuronxcc.nki.compiler"))
