# feature: rejected: a module-level global whose statement failed on host-only values, used by the kernel (note points at the statement)
# expect-error: {file}:14:18: error: 'MEAN' has no compile-time value: its module-level statement failed ('numpy.random.default_rng().standard_normal().mean()' is not available at kernel compile time (module 'numpy' is host-side code that the NKI front end does not evaluate))
# expect-stderr: {file}:9:8: note: the statement that failed
import numpy as np

import nki
from conflib import emit

MEAN = float(np.random.default_rng(0).standard_normal(8).mean())


@nki.jit
def reject_host_global():
    return emit([MEAN * 2])
