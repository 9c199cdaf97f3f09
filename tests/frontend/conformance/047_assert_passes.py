# feature: passing asserts (with and without messages) and pass statements
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    assert True
    assert 1 + 1 == 2, "math"
    assert [1], f"non-empty {[1]}"
    pass
    if True:
        pass
    return [1]


@nki.jit
def assert_passes():
    return emit(compute())
