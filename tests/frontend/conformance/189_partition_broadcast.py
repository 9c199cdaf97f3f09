# feature: legacy elementwise ops broadcast a partition dimension of 1: [P, F] + [1, F], [P, F] * [1, 1], [P, 1] - [1, F]
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: r = rng.standard_normal((1, 64)).astype(np.float32)
# input: c = rng.standard_normal((128, 1)).astype(np.float32)
# golden: a + r
# golden: a * r[:, :1]
# golden: c - r
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def par_broadcast(a, r, c):
    o1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o3 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    row = nl.load(r)
    col = nl.load(c)
    nl.store(o1, value=nl.add(x, row))
    nl.store(o2, value=x * row[0:1, 0:1])
    nl.store(o3, value=nl.subtract(col, row))
    return o1, o2, o3
