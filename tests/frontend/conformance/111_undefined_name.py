# feature: undefined names are named and located (typos in helpers and in the kernel)
# expect-error: {file}:10:17: error: name 'tile_sizee' is not defined
import nki
from conflib import emit

tile_size = 128


def rows(n):
    return n // tile_sizee


@nki.jit
def undefined_name():
    return emit([rows(1024)])
