# feature: comparison operators and chains (a < b < c, mixed ==/!=/in/not in), is None / is not None, ordering of sequences and strings
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    x, none = 5, None
    return [1 < x < 10, 1 < x > 7, x == 5 != 6, 0 <= x <= 5 < 6, 3 in [1, 3] not in [[3]], x not in (1, 2),
            "ab" < "b", [1, 2] < [1, 2, 0], (2,) > (1, 9), 1 == 1.0, "5" == 5, none is None, x is not None,
            None == None, [] == [], {"a": 1} == {"a": 1}, 2 >= 2, -1 > -2]


@nki.jit
def comparisons():
    return emit(compute())
