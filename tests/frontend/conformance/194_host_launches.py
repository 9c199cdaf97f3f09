# feature: module-level nki.simulate(kernel)(...) and nki.simulate_kernel(kernel, ...) are host launches, skipped like other host code; tensor_copy(dtype=) is accepted (dst's dtype decides the conversion)
# input: a = rng.standard_normal((64, 32)).astype(np.float32)
# golden: a.astype(np.float16).astype(np.float32)
import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki as legacy_nki


@nki.jit
def to_half(a):
    out = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
    x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    h = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.sbuf)
    nisa.tensor_copy(dst=h, src=x, dtype=nl.float16)
    nisa.dma_copy(dst=out, src=h)
    return out


example = np.ones((64, 32), np.float32)
result = nki.simulate(to_half)(example)
legacy_nki.simulate_kernel(to_half, example)
np.testing.assert_allclose(result, example)
