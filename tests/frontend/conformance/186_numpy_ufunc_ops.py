# feature: numpy ufuncs as operators in legacy kernels (np.add / np.subtract / np.multiply / np.square / np.greater_equal as op=, np.maximum and np.max where an ALU op is expected, np.multiply called on tiles) and nl.max passed as an ALU op
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: b = rng.standard_normal((128, 64)).astype(np.float32)
# golden: (a + b).sum(axis=1, keepdims=True)
# golden: np.maximum((a - 1.0) * 2.0, 0.0)
# golden: np.square(a)
# golden: (a >= b).astype(np.float32)
# golden: a * b
# golden: np.maximum(a, b).max(axis=1, keepdims=True)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def ufunc_ops(a, b):
    outs = [nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)]
    for _ in range(4):
        outs.append(nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm))
    outs.append(nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm))
    x = nl.load(a)
    y = nl.load(b)
    s = nisa.tensor_tensor(x, y, op=np.add)
    nl.store(outs[0], value=nisa.tensor_reduce(np.add, s, axis=1, keepdims=True))
    t = nisa.tensor_scalar(x, np.subtract, 1.0, op1=np.multiply, operand1=2.0)
    nl.store(outs[1], value=nisa.tensor_scalar(t, np.maximum, 0.0))
    nl.store(outs[2], value=nisa.activation(np.square, x))
    nl.store(outs[3], value=nisa.tensor_tensor(x, y, op=np.greater_equal, dtype=nl.float32))
    nl.store(outs[4], value=np.multiply(x, y))
    m = nisa.tensor_tensor(x, y, op=nl.max)
    nl.store(outs[5], value=nisa.tensor_reduce(np.max, m, axis=1, keepdims=True))
    return tuple(outs)
