# feature: malformed source: a keyword used as a name is a located syntax error
# expect-error: {file}:7:5: error: invalid syntax
import nki


@nki.jit
def class():
    return None
