# feature: None and bool values: truthiness of every type, not/and/or results, bool arithmetic, comparisons with None
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    vals = [None, True, False, 0, 1, -1, 0.0, 0.5, "", "a", (), (0,), [], [0], {}, {"k": 0}, range(0), range(2)]
    out = [bool(v) for v in vals]
    out += [not v for v in vals]
    out += [None or 3, 0 and 5, [] or "x", 2 and 4, None == None, None != 0, True == 1, False == 0.0, True + 1]
    out += [isinstance(True, int), str(None), str(True), repr(False), int(True), float(False)]
    return out


@nki.jit
def none_bool():
    return emit(compute())
