# feature: rejected: a kernel that fails after np.save filled a virtual file reports its error (the virtual files are freed with the interpreter, no crash)
# expect-error: {file}:17:5: error: assertion failed: constant has shape (4, 4)
# input: a = rng.standard_normal((4, 4)).astype(np.float32)
from tempfile import NamedTemporaryFile

import numpy as np

import nki
import nki.language as nl


@nki.jit
def error_after_save(a):
    with NamedTemporaryFile(suffix=".npy") as f:
        np.save(f, np.eye(4, dtype=np.float32))
    c = nl.shared_constant(f.name)
    assert c.shape == (5, 5), "constant has shape " + str(c.shape)
    return a
