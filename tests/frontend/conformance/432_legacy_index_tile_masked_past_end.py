# feature: a legacy index-tile subscript past the end of a tensor is allowed when the op's mask keeps every access inside it: rows i_p + 100 of 128 with the mask i_p < 28, in nl.load and nl.store (the rows past the mask are not written)
# input: a = rng.standard_normal((128, 16)).astype(np.float32)
# golden: np.concatenate([a[100:128] * 2.0, np.zeros((100, 16), dtype=np.float32)], axis=0)
# tolerance: 1e-6 1e-6
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def shifted(a):
    out = nl.ndarray((128, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(16)[None, :]
    zeros = nl.zeros((128, 16), dtype=a.dtype)
    nl.store(out[i_p, i_f], value=zeros)
    tail = nl.load(a[i_p + 100, i_f], mask=(i_p < 28))
    nl.store(out[i_p, i_f], value=tail * 2.0, mask=(i_p < 28))
    return out
