# feature: legacy nisa.tensor_scalar_reduce(data=, op0=, operand0=, reduce_op=nl.max, reduce_res=) without dst= returns the result tile and fills reduce_res
# input: a = rng.standard_normal((128, 96)).astype(np.float32)
# golden: a * 3.0
# golden: (a * 3.0).max(axis=1, keepdims=True)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def ts_reduce(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    red = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    r = nl.ndarray((128, 1), dtype=nl.float32)
    t = nisa.tensor_scalar_reduce(data=nl.load(a), op0=nl.multiply, operand0=3.0, reduce_op=nl.max, reduce_res=r)
    nl.store(out, value=t)
    nl.store(red, value=r)
    return out, red
