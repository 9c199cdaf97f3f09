"""Stand-in legacy `neuronxcc.nki` (tests/device/sdk/standin.py): jit, baremetal and benchmark."""
import sys

from standin import sdk_module_getattr, Benchmark, LogicalCores, jit as _jit, placeholder_module

jit = _jit("neuronxcc.nki")
__version__ = "0.0-standin"


def baremetal(kernel=None, **options):
    return kernel if kernel is not None else (lambda k: k)


def benchmark(warmup=5, iters=10, **options):
    return lambda kernel: Benchmark(kernel, warmup, iters)


for _sub in ("language", "isa", "typing", "compiler"):
    sys.modules[__name__ + "." + _sub] = globals()[_sub] = placeholder_module(__name__ + "." + _sub)
sys.modules[__name__ + ".language"].nc = LogicalCores  # kernel[nl.nc(2)]: the legacy spelling of an LNC=2 launch
__getattr__ = sdk_module_getattr(__name__)  # other SDK names: placeholders
