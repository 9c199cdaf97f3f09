# feature: tuple, int, float, bool, str and None kernel arguments given on the command line (--arg)
# args: --arg sizes=(3,4,5) --arg n=7 --arg scale=0.5 --arg flag=True "--arg" "tag='ab'" --arg opt=None
# golden: expect([3, 4, 5, 7, 0.5, 1, 97, 98, 1])
import nki
from conflib import emit, expect


@nki.jit
def tuple_arg(sizes=(1, 2), n=1, scale=1.0, flag=False, tag="", opt=0):
    return emit(list(sizes) + [n, scale, flag, tag, opt is None])
