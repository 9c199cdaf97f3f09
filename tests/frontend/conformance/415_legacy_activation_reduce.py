# feature: legacy nisa.activation_reduce(op, data, reduce_op, reduce_res, bias=, scale=, mask=) returns the activation tile and writes the row reduction into reduce_res, restricted to the mask's partitions
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: np.square(a[0:96])
# golden: np.where(np.arange(128) < 96, np.square(a).sum(axis=1), -1.0).astype(np.float32)[:, None]
# tolerance: 1e-5 1e-5
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def act_reduce(a):
    out = nl.ndarray((96, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    r = nl.full((128, 1), -1.0, dtype=nl.float32)
    i_p = nl.arange(128)[:, None]
    sq = nisa.activation_reduce(op=nl.square, data=t, reduce_op=np.add, reduce_res=r[...], mask=(i_p < 96))
    nl.store(out, value=sq[0:96, :])
    nl.store(sums, value=r)
    return out, sums
