# feature: a partition broadcast of an int32 row is exact for every value (the row's 16-bit halves go through the Tensor Engine), also as a legacy operand [P, F] + [1, F]
# input: r = np.array([[2**31 - 1, -2**31, 16777217, -16777219, 123456789, -7, 0, 65535]], np.int32)
# input: m = np.arange(96 * 8, dtype=np.int32).reshape(96, 8)
# golden: np.repeat(r, 96, axis=0)
# golden: np.repeat(r, 96, axis=0) ^ m
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def int_bcast(r, m):
    o1 = nl.ndarray((96, 8), dtype=nl.int32, buffer=nl.shared_hbm)
    o2 = nl.ndarray((96, 8), dtype=nl.int32, buffer=nl.shared_hbm)
    row = nl.load(r)
    nl.store(o1, value=nl.broadcast_to(row, shape=(96, 8)))
    nl.store(o2, value=nl.bitwise_xor(nl.load(m), row))
    return o1, o2
