# feature: .select(dim, tensor) (a dynamic index) is rejected with a located "not supported yet" error
# expect-error: {file}:11:9: error: select() with a dynamic (tensor) index is not supported yet by nki-sim
import nki
import nki.language as nl


@nki.jit
def dynamic_select():
    t = nl.ndarray((128, 4, 64), nl.float32, buffer=nl.sbuf)
    idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    v = t.select(1, idx)
    return None
