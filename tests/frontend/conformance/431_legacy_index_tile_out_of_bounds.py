# feature: rejected: a legacy index-tile subscript whose values run past the tensor (i_p + 100 over 128 rows), without a mask keeping the access inside, is a located error where the view is used (it used to read past the tensor)
# expect-error: {file}:15:12: error: index tile values 100..227 are out of bounds for dimension 0 of size 128 (a mask= keeping the access within the tensor would allow it)
# input: a = rng.standard_normal((128, 16)).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def shifted(a):
    out = nl.ndarray((128, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(16)[None, :]
    head = nl.load(a[i_p, i_f])
    nl.store(out[i_p, i_f], value=head)
    tail = nl.load(a[i_p + 100, i_f])
    nl.store(out[i_p, i_f], value=tail)
    return out
