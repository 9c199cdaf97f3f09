# feature: nl.rand(shape) (dtype float32 by default) gives values in [0, 1) from the Vector Engine's generators; nl.fp32.min / .max are the float32 extremes
# golden: np.ones((128, 4), np.float32)
# golden: np.array([[-3.4028234663852886e+38, 3.4028234663852886e+38]], np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rand_stats():
    out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    lim = nl.ndarray((1, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    r = nl.rand((128, 512))
    mean = nl.mean(r, axis=1, keepdims=True)
    flags = nl.ndarray((128, 4), dtype=nl.float32)
    flags[:, 0:1] = nl.less(nl.max(r, axis=1, keepdims=True), 1.0, dtype=nl.float32)
    flags[:, 1:2] = nl.greater_equal(nl.min(r, axis=1, keepdims=True), 0.0, dtype=nl.float32)
    flags[:, 2:3] = nl.greater(mean, 0.4, dtype=nl.float32)
    flags[:, 3:4] = nl.less(mean, 0.6, dtype=nl.float32)
    nl.store(out, value=flags)
    l = nl.ndarray((1, 2), dtype=nl.float32)
    l[0:1, 0:1] = nl.full((1, 1), nl.fp32.min, dtype=nl.float32)
    l[0:1, 1:2] = nl.full((1, 1), nl.fp32.max, dtype=nl.float32)
    nl.store(lim, value=l)
    return out, lim
