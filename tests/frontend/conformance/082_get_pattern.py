# feature: view queries: .shape .strides .offset .ndim .size .dtype .buffer .name, get_pattern(), is_contiguous()
# golden: expect([[[64, 128], [1, 16]], 8, False, True, 2, 2048, 1])
import nki
import nki.language as nl
from conflib import emit, expect


@nki.jit
def get_pattern():
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf, name="tile")
    v = t.slice(1, 8, 24)  # the spec's example: [[64, 128], [1, 16]], offset 8
    assert t.name == "tile" and v.dtype == nl.float32 and v.buffer == nl.sbuf and nl.is_sbuf(v.buffer)
    return emit([v.get_pattern(), v.offset, v.is_contiguous(), t.is_contiguous(), v.ndim, v.size,
                 1 if t.strides == (64, 1) else 0])
