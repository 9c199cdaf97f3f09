# feature: a tensor handle is truthy as a Python object (`if params.t:` tests for presence; `not t` is False); a comparison of tensors stays an error (104)
# golden: np.array([[1, 0, 1, 0]], np.float32)
import nki
import nki.language as nl
from conflib import emit


class Params(nl.NKIObject):
    scale = None


@nki.jit
def tensor_handle_truthy():
    t = nl.ndarray((1, 1), nl.float32, buffer=nl.sbuf)
    p = Params(scale=t)
    q = Params()
    return emit([1 if p.scale else 0, 1 if q.scale else 0, bool(t), not t])
