# feature: host numpy arrays in a kernel have .max() / .min() / .sum() / .prod() over all elements (trace-time index arithmetic)
# input: a = rng.standard_normal((128, 16)).astype(np.float32)
# golden: a[:, 0:7] * 3.0
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def spans(a):
    starts = np.arange(4, dtype=np.int32) * 2
    ends = starts + np.array([2, 3, 2, 1], dtype=np.int32)
    widths = ends - starts
    w = int(widths.max()) + int(widths.min()) + int(widths.sum()) - 5 + int(np.array([1, 2, 3]).prod()) - 6
    out = nl.ndarray((128, w), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a[:, 0:w])
    nl.store(out, value=nl.multiply(t, 3.0))
    return out
