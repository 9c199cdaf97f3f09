"""Stand-in `nki` (tests/device/sdk/standin.py): jit runs the kernel with nki-sim; benchmark raises as NKI 0.2 does."""
import sys

from standin import sdk_module_getattr, jit as _jit, placeholder_module

jit = _jit("nki")
__version__ = "0.0-standin"


def simulate(kernel):
    """nki.simulate(kernel): the stand-in runs every kernel with nki-sim anyway."""
    return kernel


def benchmark(*args, **kwargs):
    raise NotImplementedError("nki.benchmark is not available in this release (stand-in)")


for _sub in ("language", "isa", "typing", "compiler"):
    sys.modules[__name__ + "." + _sub] = globals()[_sub] = placeholder_module(__name__ + "." + _sub)
__getattr__ = sdk_module_getattr(__name__)  # other SDK names: placeholders
