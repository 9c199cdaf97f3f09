# feature: limit: runaway recursion is a located error (maximum recursion depth), never a stack overflow; the repeated call collapses into one note
# expect-error: {file}:9:12: error: maximum recursion depth exceeded (1000 Python frames; raise the limit with --max-recursion N)
# expect-stderr: {file}:9:12: note: called from here (998 times)
import nki
from conflib import emit


def descend(n):
    return descend(n + 1) + 1


@nki.jit
def recursion_limit():
    return emit([descend(0)])
