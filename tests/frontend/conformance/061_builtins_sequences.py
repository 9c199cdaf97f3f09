# feature: sequence builtins: len tuple list dict set sorted reversed enumerate zip any all isinstance str repr map filter range
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect


class Thing(nl.NKIObject):
    pass


def compute():
    xs = [3, 1, 2]
    return [len(xs), len("héllo"), len({"a": 1}), len(range(0, 10, 3)), tuple(xs), list("ab"), dict([("k", 1)]),
            sorted(set([3, 3, 1])), sorted(xs), sorted(xs, reverse=True), sorted(["bb", "a", "ccc"], key=len),
            list(reversed(xs)), list(enumerate("ab")), list(zip(xs, "abc", (True, False, True))), list(zip([1, 2], [3])),
            any([]), all([]), any(x > 2 for x in xs), all(x > 0 for x in xs), isinstance(3, int), isinstance(3.0, int),
            isinstance("s", (int, str)), isinstance(True, int), isinstance(Thing(), Thing), isinstance([], list),
            str(12), str(1.5), str([1, "a"]), repr("q"), list(map(str, xs)), list(filter(None, [0, 1, "", "x"])),
            list(range(5, 0, -2)), range(10)[-1], range(2, 20, 3)[2], 5 in range(10)]


@nki.jit
def builtins_sequences():
    return emit(compute())
