# feature: rejected: 'is' / 'is not' between values in a kernel (only 'is None' / 'is not None' are allowed)
# expect-error: {file}:10:8: error: 'is' is only supported with None in NKI kernels; compare values with == or !=
import nki
from conflib import emit


@nki.jit
def reject_is_comparison(mode="fast"):
    ok = mode is not None
    if mode is "fast":
        return emit([1])
    return emit([0])
