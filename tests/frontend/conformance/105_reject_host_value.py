# feature: rejected: host-only values (numpy.random, torch) used by the kernel are named, with where they came from
# expect-error: {file}:13:12: error: 'numpy.random.rand' is not available at kernel compile time (module 'numpy' is host-side code that the NKI front end does not evaluate)
# expect-stderr: {file}:19:18: note: called from here
import numpy as np

import nki
from conflib import emit

DATA = np.random.rand(4) * 2  # host code: fine at module level


def jitter():
    return np.random.rand()


@nki.jit
def reject_host_value():
    scale = 2.0
    return emit([jitter() * scale])
