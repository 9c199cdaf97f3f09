# feature: .item() of a numpy scalar (np.finfo(t).min, np.float32(x), np.int32(n), np.iinfo(t).max) is the Python number, at module level and in a kernel (nki-library's top-k utilities take np.finfo(np.float32).min.item())
# golden: np.array([[np.finfo(np.float32).min, 0.5, 7, 127, 1, 1]], np.float32)
import numpy as np

import nki
from conflib import emit

FLOAT32_MIN = np.finfo(np.float32).min.item()


@nki.jit
def numpy_scalar_item():
    half = np.float32(0.5).item()
    return emit([FLOAT32_MIN, half, np.int32(7).item(), np.iinfo(np.int8).max.item(), isinstance(FLOAT32_MIN, float),
                 isinstance(np.int32(7).item(), int)])
