# feature: legacy nl.par_dim after a leading block dim: (2, nl.par_dim(128), 64) in SBUF, blocks indexed with integers (t[i], t[i, i_p, i_f])
# input: a = rng.standard_normal((256, 64)).astype(np.float32)
# golden: np.concatenate([a[128:] * 2.0, a[:128] * 2.0])
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def blocks(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    t = nl.ndarray((2, nl.par_dim(128), 64), dtype=a.dtype, buffer=nl.sbuf)
    for i in nl.affine_range(2):
        t[i, i_p, i_f] = nl.load(a[i * 128 + i_p, i_f])
    for i in nl.affine_range(2):
        nl.store(out[(1 - i) * 128 + i_p, i_f], value=t[i] * 2.0)
    return out
