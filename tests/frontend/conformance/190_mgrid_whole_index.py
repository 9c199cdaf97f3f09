# feature: a whole nl.mgrid result as a subscript (t[g] with g = nl.mgrid[0:P, 0:F]) in loads, stores and tile views
# input: a = rng.standard_normal((64, 48)).astype(np.float32)
# golden: a * 2.0
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def mgrid_whole(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    g = nl.mgrid[0:64, 0:48]
    x = nl.load(a[g])
    y = nl.ndarray((64, 48), dtype=a.dtype)
    y[g] = nl.multiply(x[g], 2.0)
    nl.store(out[g], value=y)
    return out
