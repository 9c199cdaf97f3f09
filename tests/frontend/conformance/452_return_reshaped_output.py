# feature: a kernel that returns its output tensor reshaped (`return out.reshape((n, c, h, w))`, as nki-samples' contributed interpolation kernels do) gives an output of that shape: the same bytes in row-major order
# input: a = rng.standard_normal((2, 64, 4, 8)).astype(np.float32)
# golden: a * 2.0
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def reshaped_output(a):
    n, c, h, w = a.shape
    flat = a.reshape((n * c, h, w))
    out = nl.ndarray((n * c, h, w), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_h, i_w = nl.mgrid[0:128, 0:h, 0:w]
    nl.store(out[i_p, i_h, i_w], value=nl.multiply(nl.load(flat[i_p, i_h, i_w]), 2.0))
    return out.reshape((n, c, h, w))
