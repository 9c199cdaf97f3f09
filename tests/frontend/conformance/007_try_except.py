# feature: try/except/else/finally, exception classes and hierarchy, raise, re-raise, exception args
# golden: expect(compute())
import nki
from conflib import emit, expect


class TilingError(ValueError):
    pass


def risky(k):
    if k == 0:
        raise TilingError("bad tile", k)
    if k == 1:
        return [1, 2][5]
    if k == 2:
        return 1 // 0
    return k


def compute():
    out = []
    for k in range(4):
        try:
            v = risky(k)
        except TilingError as e:
            out.append(["tiling", e.args[0], isinstance(e, ValueError)])
        except (IndexError, ZeroDivisionError) as e:
            out.append(type(e).__name__)
        else:
            out.append(["ok", v])
        finally:
            out.append("finally")
    try:
        try:
            raise KeyError("k")
        except KeyError:
            out.append("inner")
            raise
    except LookupError:
        out.append("outer")
    try:
        int("xyz")
    except ValueError as e:
        out.append("value error")
    return out


@nki.jit
def try_except():
    return emit(compute())
