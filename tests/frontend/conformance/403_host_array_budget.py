# feature: rejected: a compile-time numpy array past nki-sim's budget of 8388608 elements
# expect-error: {file}:12:11: error: compile-time numpy array of shape (4096, 4096) exceeds nki-sim's budget of 8388608 elements
# input: a = rng.standard_normal((4, 4)).astype(np.float32)
import numpy as np

import nki
import nki.language as nl


@nki.jit
def host_array_budget(a):
    big = np.zeros((4096, 4096))
    return a
