# feature: malformed source: an unterminated string literal is located at its start
# expect-error: {file}:8:12: error: unterminated string literal (detected at line 8)
import nki


@nki.jit
def unterminated_string():
    name = "tile
    return name
