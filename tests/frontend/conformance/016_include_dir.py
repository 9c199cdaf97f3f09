# feature: -I DIR adds an import search path (packages and plain modules found there)
# args: -I {dir}/incdir
# golden: expect(compute())
import nki
from conflib import emit, expect
from extlib.scales import SCALES, scaled
import flatmod


def compute():
    return [SCALES, scaled(3.0), scaled(3.0, k=1), flatmod.FLAT]


@nki.jit
def include_dir():
    return emit(compute())
