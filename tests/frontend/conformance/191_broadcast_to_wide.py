# feature: the tile method .broadcast_to(shape), and a [1, N] partition broadcast with N > 512 (split into 512-column matmuls)
# input: r = rng.standard_normal((1, 1300)).astype(np.float32)
# input: c = rng.standard_normal((96, 1)).astype(np.float32)
# golden: np.repeat(r, 96, axis=0)
# golden: np.repeat(c, 700, axis=1)
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def wide_bcast(r, c):
    o1 = nl.ndarray((96, 1300), dtype=nl.float32, buffer=nl.shared_hbm)
    o2 = nl.ndarray((96, 700), dtype=nl.float32, buffer=nl.shared_hbm)
    row = nl.load(r)
    nl.store(o1, value=nl.broadcast_to(row, shape=(96, 1300)))
    nl.store(o2, value=nl.load(c).broadcast_to((96, 700)))
    return o1, o2
