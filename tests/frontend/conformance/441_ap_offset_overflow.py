# feature: .ap() on a view whose offset= would pass 2^63 elements past the view's own offset is a located error
# expect-error: {file}:10:9: error: ap: the offset overflows: the view of 'x' starts at element 1 and offset= adds 9223372036854775807
import nki
import nki.language as nl


@nki.jit
def ap_offset_overflow(x=None):
    x = nl.ndarray((8, 512), nl.float32, buffer=nl.shared_hbm, name="x")
    v = x[:, 1:].ap([[512, 8], [1, 4]], offset=9223372036854775807)
    return None
