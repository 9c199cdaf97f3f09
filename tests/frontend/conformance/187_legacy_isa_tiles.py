# feature: legacy nisa calls without dst= return a new tile: iota(expr, dtype=), max8, nc_find_index8, bn_stats + bn_aggr (dtype=), reciprocal, tensor_partition_reduce(np.add, x), dropout(x, prob=0.0)
# input: a = rng.permutation(128 * 64).reshape(128, 64).astype(np.float32) / 100.0 + 0.5
# golden: (np.arange(128)[:, None] * 3 + np.arange(64)[None, :] * 2 + 5).astype(np.float32)
# golden: -np.sort(-a, axis=1)[:, :8]
# golden: np.argsort(-a, axis=1)[:, :8].astype(np.float32)
# golden: np.stack([a.mean(axis=1), a.var(axis=1)], axis=1)
# golden: 1.0 / a
# golden: a.sum(axis=0, keepdims=True)
# golden: a
# tolerance: 1e-5 1e-5
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def legacy_tiles(a):
    P, F = a.shape
    shapes = [(P, F), (P, 8), (P, 8), (P, 2), (P, F), (1, F), (P, F)]
    outs = [nl.ndarray(s, dtype=nl.float32, buffer=nl.shared_hbm) for s in shapes]
    ip, jf = nl.mgrid[0:P, 0:F]
    idx = nisa.iota(ip * 3 + jf * 2 + 5, dtype=nl.int32)
    nl.store(outs[0], value=nl.copy(idx, dtype=nl.float32))
    x = nl.load(a)
    top = nisa.max8(src=x)
    nl.store(outs[1], value=top)
    where = nisa.nc_find_index8(data=x, vals=top)
    nl.store(outs[2], value=nl.copy(where, dtype=nl.float32))
    stats = nisa.bn_stats(x, dtype=nl.float32)
    nl.store(outs[3], value=nisa.bn_aggr(stats))
    nl.store(outs[4], value=nisa.reciprocal(x))
    nl.store(outs[5], value=nisa.tensor_partition_reduce(np.add, x))
    nl.store(outs[6], value=nisa.dropout(x, prob=0.0))
    return tuple(outs)
