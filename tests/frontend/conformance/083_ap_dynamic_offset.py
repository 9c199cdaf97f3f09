# feature: .ap(scalar_offset=...) (a dynamic offset) is rejected with a located "not supported yet" error
# expect-error: {file}:11:9: error: ap(scalar_offset=...) (a dynamic offset) is not supported yet by nki-sim
import nki
import nki.language as nl


@nki.jit
def ap_dynamic_offset():
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    v = t.ap([[64, 128], [1, 8]], scalar_offset=idx)
    return None
