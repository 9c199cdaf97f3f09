# feature: legacy elementwise ops and nl.where broadcast dims of size 1 as numpy does: free dims ([P, 4, 1, 1] == [P, 4, 3, 3], [P, 1, 5] * [P, 4, 1] -> [P, 4, 5]) and a partition dim with free dims together ([P, 4, 3, 3] - [1, 1, 3, 3])
# input: a = rng.integers(0, 3, (128, 4, 1, 1)).astype(np.float32)
# input: b = rng.integers(0, 3, (128, 4, 3, 3)).astype(np.float32)
# input: c = rng.standard_normal((1, 1, 3, 3)).astype(np.float32)
# input: x = rng.standard_normal((128, 1, 5)).astype(np.float32)
# input: y = rng.standard_normal((128, 4, 1)).astype(np.float32)
# golden: np.equal(a, b).astype(np.float32)
# golden: (b - c).astype(np.float32)
# golden: np.where(a == b, c, np.float32(-1.0)).astype(np.float32)
# golden: (x * y).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def broadcast_free(a, b, c, x, y):
    eq_out = nl.ndarray((128, 4, 3, 3), dtype=nl.float32, buffer=nl.shared_hbm)
    sub_out = nl.ndarray((128, 4, 3, 3), dtype=nl.float32, buffer=nl.shared_hbm)
    where_out = nl.ndarray((128, 4, 3, 3), dtype=nl.float32, buffer=nl.shared_hbm)
    mul_out = nl.ndarray((128, 4, 5), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.load(a)
    tb = nl.load(b)
    tc = nl.load(c)
    eq = nl.equal(ta, tb, dtype=nl.float32)
    nl.store(eq_out, value=eq)
    nl.store(sub_out, value=nl.subtract(tb, tc))
    nl.store(where_out, value=nl.where(eq, tc, -1.0))
    nl.store(mul_out, value=nl.multiply(nl.load(x), nl.load(y)))
    return eq_out, sub_out, where_out, mul_out
