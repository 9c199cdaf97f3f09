# feature: malformed source: a character that is not valid Python ($) is located
# expect-error: {file}:8:11: error: invalid character '$' (U+0024)
import nki


@nki.jit
def invalid_character():
    x = 1 $ 2
    return x
