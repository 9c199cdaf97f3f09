# feature: rejected: a legacy launch with a negative grid size, located at the size (kernel[0] runs one instance; see 150 for a grid read from the file)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:20:27: error: neg_grid[...]: launch grid sizes must not be negative, got -1
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def neg_grid(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out


if __name__ == "__main__":
    a = np.zeros((128, 64), np.float32)
    for _ in range(1):
        out = neg_grid[2, -1](a)
