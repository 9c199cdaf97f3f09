# feature: rejected: nl.shared_constant of a float64 array without dtype= (nki-sim has no float64 device dtype)
# expect-error: {file}:12:9: error: shared_constant: the array is float64, which nki-sim has no device dtype for; pass dtype= or convert it with .astype()
# input: a = rng.standard_normal((4, 4)).astype(np.float32)
import numpy as np

import nki
import nki.language as nl


@nki.jit
def shared_constant_float64(a):
    c = nl.shared_constant(np.eye(4))
    return a
