# feature: nl.loop_reduce(x, op, loop_indices, dtype=) reduces x into its destination (the legacy docs: "the destination tile is also the rhs input to op"): a subscript store with np.add, np.maximum and a mask, and the docs' own form `b = nl.loop_reduce(a, ...)` into the tile b holds
# input: a = rng.standard_normal((4, 128, 64)).astype(np.float32)
# golden: a.sum(axis=0)
# golden: np.concatenate([a[:, :, :32].max(axis=0), np.full((128, 32), -100.0, np.float32)], axis=1)
# golden: a.sum(axis=0) + 1.0
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def loop_reduce(a):
    s_out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    m_out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    b_out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    b = nl.full((nl.par_dim(128), 64), 1.0, dtype=nl.float32)
    acc = nl.zeros((2, nl.par_dim(128), 64), dtype=nl.float32)
    mx = nl.full((nl.par_dim(128), 64), -100.0, dtype=nl.float32)
    ip, jf = nl.mgrid[0:128, 0:64]
    for i in nl.affine_range(4):
        x = nl.load(a[i])
        acc[1, :, :] = nl.loop_reduce(x, op=np.add, loop_indices=[i], dtype=nl.float32)
        mx[ip, jf] = nl.loop_reduce(x, np.maximum, [i], mask=(jf < 32))
        b = nl.loop_reduce(x, op=np.add, loop_indices=[i], dtype=nl.float32)
    nl.store(s_out, acc[1])
    nl.store(m_out, mx)
    nl.store(b_out, b)
    return s_out, m_out, b_out
