# feature: str values are Unicode: len, indexing, slicing, find, case mapping, padding and format widths count code points
# golden: expect(compute())
import nki
from conflib import emit, expect


def compute():
    s = "héllo wörld ΑΒγ"
    return [len(s), s[1], s[-1], s[::-1], s[2:9:2], s.upper(), s.lower(), s.title(), s.find("w"), s.rfind("ö"),
            s.index("ö", 2), s.count("l"), s.center(20, "*"), s.ljust(18, "é"), f"{s:>20}|{s:.3}|", "%.4s|" % s,
            s.startswith("ll", 2), s.split(" "), "ÉÀ".isupper(), "éà".islower(), s.strip("hé"), s.swapcase(),
            [c for c in "añb"], ord("ö"), chr(0x3B3), sorted("cñab"), "ñ" in s, "é" < "z", repr("ñ\n"),
            "-".join(["α", "β"]), s.replace("ö", "oe"), s.encode("utf-8").decode("utf-8") == s, "Straße".lower(),
            str(3) + "x" * 3, "a,b,,c".split(","), "  pad  ".strip(), "x".zfill(4), "Tile".startswith(("T", "X"))]


@nki.jit
def strings_unicode():
    return emit(compute())
