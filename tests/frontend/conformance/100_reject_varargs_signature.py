# feature: rejected: *args / **kwargs in a kernel signature
# expect-error: {file}:8:24: error: kernel 'varargs_signature': variadic parameters (*args, **kwargs) are not supported in NKI kernel signatures
import nki
from conflib import emit


@nki.jit
def varargs_signature(*sizes):
    return emit(list(sizes))
