# feature: the same two-index-tile subscript under a mask that lets the last rows past the end (i_h < 47: row 46 + 2 = 48 of 48) is the located out-of-bounds error, not a read past the tensor
# input: a = rng.standard_normal((48, 16)).astype(np.float32)
# expect-error: {file}:13:9: error: index tile values 0..49 are out of bounds for dimension 0 of size 48 (a mask= keeping the access within the tensor would allow it)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def windows(a):
    out = nl.ndarray((48, 3, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    i_h, i_k, i_w = nl.mgrid[0:48, 0:3, 0:16]
    t = nl.load(a[i_h + i_k, i_w], mask=(i_h < 47))
    nl.store(out[i_h, i_k, i_w], value=t, mask=(i_h < 47))
    return out
