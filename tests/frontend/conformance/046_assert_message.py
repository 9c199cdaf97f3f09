# feature: a failing assert is a compile error at the assert's line carrying its (f-string) message
# expect-error: {file}:9:5: error: assertion failed: tile 384 is not a multiple of 256 (n=3)
import nki
from conflib import emit


def check_tile(size, align=256):
    n = size // 128
    assert size % align == 0, f"tile {size} is not a multiple of {align} (n={n})"
    return n


@nki.jit
def assert_message():
    assert check_tile(512) == 4
    return emit([check_tile(384)])
