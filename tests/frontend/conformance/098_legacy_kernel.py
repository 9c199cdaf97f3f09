# feature: a legacy kernel (from neuronxcc import nki; @nki.jit) may use neuronxcc.nki.* namespaces
# input: a = rng.standard_normal((128, 32)).astype(np.float32)
# golden: np.exp(a)
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc import nki


@nki.jit
def legacy_kernel(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.activation(dst=t, op=nl.exp, data=t)
    nisa.dma_copy(dst=out, src=t)
    return out
