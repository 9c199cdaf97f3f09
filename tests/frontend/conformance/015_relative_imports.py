# feature: relative imports inside a package (from ..consts import X, from . import helpers)
# golden: expect(compute())
import nki
from conflib import emit, expect
from mylib.sub.deep import rows


def compute():
    return [rows(0), rows(3)]


@nki.jit
def relative_imports():
    return emit(compute())
