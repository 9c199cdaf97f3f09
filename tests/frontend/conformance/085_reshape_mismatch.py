# feature: reshape with a different element count is the documented error, located at the call
# expect-error: {file}:10:9: error: cannot reshape tensor of shape (128, 64) into shape (128, 65)
import nki
import nki.language as nl


@nki.jit
def reshape_mismatch(a=None):
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    r = t.reshape((128, 65))
    return None
