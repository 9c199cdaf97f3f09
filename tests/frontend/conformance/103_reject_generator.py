# feature: rejected: calling a generator function (yield) from a kernel
# expect-error: {file}:14:22: error: generator function tiles() is not supported in NKI kernels
import nki
from conflib import emit


def tiles(n):
    for i in range(n):
        yield i


@nki.jit
def reject_generator():
    return emit(list(tiles(3)))
