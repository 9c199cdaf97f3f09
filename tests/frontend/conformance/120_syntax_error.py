# feature: malformed source: an unclosed parenthesis is a located syntax error (exit 1)
# expect-error: {file}:8:9: error: '(' was never closed
import nki


@nki.jit
def syntax_error():
    x = (1 +
    return x
