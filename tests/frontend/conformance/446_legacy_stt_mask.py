# feature: the legacy nisa.scalar_tensor_tensor(data=, op0=, operand0=, op1=, operand1=, mask=) returns a new tile and takes mask= (nki-samples' flash_attn_bwd): a compile-time condition keeps or drops the instruction
# input: x = rng.standard_normal((2, 128, 64)).astype(np.float32)
# input: c = rng.standard_normal((128, 1)).astype(np.float32)
# input: y = rng.standard_normal((128, 64)).astype(np.float32)
# golden: (x[0] - c) * y
# tolerance: 1e-5 1e-5
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def stt_mask(x, c, y):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.zeros((nl.par_dim(128), 64), dtype=nl.float32)
    for k in nl.affine_range(2):
        t[:, :] = nisa.scalar_tensor_tensor(data=nl.load(x[k]), op0=np.subtract, operand0=nl.load(c),
                                            op1=np.multiply, operand1=nl.load(y), mask=(k < 1))
    nl.store(out, t)
    return out
