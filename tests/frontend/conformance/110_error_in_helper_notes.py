# feature: an error inside helpers is located at the failing line with one "called from here" note per call in the chain
# expect-error: {file}:10:20: error: list index out of range
# expect-stderr: {file}:14:12: note: called from here
# expect-stderr: {file}:19:18: note: called from here
import nki
from conflib import emit


def pick(xs, i):
    return xs[0] + xs[i]


def total(xs):
    return pick(xs, len(xs))


@nki.jit
def error_in_helper_notes():
    return emit([total([1, 2, 3])])
