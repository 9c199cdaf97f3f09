# feature: dicts with string keys: [], get, keys, values, items, pop, setdefault, update, in, len, del, iteration order
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    d = {"tile": 128, "cols": 4}
    d["rows"] = 2
    out = [d["tile"], d.get("nope"), d.get("nope", 7), list(d.keys()), list(d.values()), list(d.items())]
    out.append(d.setdefault("cols", 99))
    out.append(d.setdefault("new", 5))
    out.append(d.pop("rows"))
    out.append(d.pop("absent", -1))
    d.update({"tile": 64}, extra=1)
    del d["new"]
    out += ["tile" in d, "rows" in d, len(d)]
    for k in d:
        out.append(k)
    for k, v in d.items():
        out.append(v)
    out.append(sorted(d))
    out.append(dict(zip(["a", "b"], [1, 2])))
    out.append(dict(a=1, b=2) == {"b": 2, "a": 1})
    return out


@nki.jit
def dict_methods():
    return emit(compute())
