# feature: malformed source: a file truncated in the middle of a statement (unexpected end of file)
# expect-error: {file}:11:17: error: '[' was never closed
import nki
from conflib import emit


@nki.jit
def truncated_file():
    x = 1
    y = 2
    return emit([x, y