# feature: host-side code in the kernel file (numpy data, torch, test harness, __main__) does not stop compilation
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a * 3.0
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

try:
    import torch
except ImportError:
    torch = None

# Module-level host data: evaluated only as far as the front end can; the kernel never touches it.
RNG = np.random.default_rng(0)
HOST_INPUT = RNG.standard_normal((128, 64)).astype(np.float32)
HOST_GOLDEN = HOST_INPUT * 3.0
SCALE = 3.0                       # a plain global the kernel does use
SHAPE = tuple(int(d) for d in (128, 64))


def make_inputs():
    return [np.random.rand(*SHAPE).astype(np.float32)]


class TestScale:
    def test_scale(self):
        out = scale_kernel(*make_inputs())
        np.testing.assert_allclose(out, HOST_GOLDEN)


@nki.jit
def scale_kernel(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=SCALE)
    nisa.dma_copy(dst=out, src=t)
    return out


if __name__ == "__main__":
    x = make_inputs()[0]
    print(scale_kernel(x))
