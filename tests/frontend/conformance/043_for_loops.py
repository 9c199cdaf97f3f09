# feature: for loops over range (with start/stop/step, negative), lists, tuples, strings, dict keys/values/items, enumerate, zip, reversed; for-else
# golden: expect(expected())
import nki
import nki.language as nl
from conflib import emit, expect


def compute():
    out = []
    for i in range(3):
        out.append(i)
    for i in range(10, 0, -3):
        out.append(i)
    for v in [1.5, 2.5]:
        out.append(v)
    for c in "hi":
        out.append(c)
    d = {"a": 1, "b": 2}
    for k in d.keys():
        out.append(k)
    for v in d.values():
        out.append(v)
    for k, v in d.items():
        out.append(k + str(v))
    for i, (a, b) in enumerate(zip((1, 2), "xy"), start=5):
        out.append([i, a, b])
    for x in reversed([1, 2, 3]):
        out.append(x)
    for x in []:
        out.append("never")
    else:
        out.append("empty else")
    return out


@nki.jit
def for_loops():
    total = 0
    for i in nl.affine_range(4):  # NKI loop helpers are plain unrolled ranges
        for j in nl.sequential_range(1, 3):
            for k in nl.static_range(2):
                total += i * j + k
    return emit(compute() + [total])


def expected():
    return compute() + [sum(i * j + k for i in range(4) for j in range(1, 3) for k in range(2))]
