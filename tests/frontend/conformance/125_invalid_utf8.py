# feature: malformed source: invalid UTF-8 is rejected, located at the offending byte
# expect-error: {file}:8:16: error: invalid UTF-8 in source (byte 0xe9)
import nki


@nki.jit
def invalid_utf8():
    name = "café"
    return name
