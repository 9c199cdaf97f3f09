# feature: f-strings: nested fields, format specs (width, fill, align, sign, precision, types, grouping), conversions, = specifier
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    x, w, p, name = 3.14159, 10, 3, "tile"
    d = {"k": 42}
    items = [1, 2, 3]
    out = [
        f"{x}", f"{x:.2f}", f"{x:{w}.{p}f}", f"{x:>{w}}", f"{name!r:^{w}}", f"{name!s}", f"{name!a}",
        f"{42:08b}", f"{255:#x}", f"{255:X}", f"{-7:+d}", f"{7: d}", f"{1234567:,}", f"{1234567:_}",
        f"{0.000123:e}", f"{12.5:%}", f"{1e20:g}", f"{d['k']:*<6}", f"{items[1] * 10}", f"{'nest' + f'{x:.1f}'}",
        f"{x=}", f"{x = :.1f}", f"{{literal}} {len(items)}", f"{name[1:3].upper()}", f"{3 if x > 3 else 4}",
        f"{'é':ç>4}", f"{-0.0:.1f}", f"{float('inf')}", f"{(lambda v: v * 2)(21)}",
    ]
    return out


@nki.jit
def fstrings():
    return emit(compute())
