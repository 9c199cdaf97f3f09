# feature: rejected: a comparison of tensors used as a compile-time condition (its value is only known at run time)
# expect-error: {file}:11:8: error: the value of a comparison of tensors is not known at compile time (it cannot be used as a condition)
import nki
import nki.language as nl
from conflib import emit


@nki.jit
def reject_tensor_condition():
    t = nl.ndarray((1, 1), nl.float32, buffer=nl.sbuf)
    if t > 0.0:
        return emit([1])
    return emit([0])
