# feature: rejected: a list passed as a kernel argument (--arg sizes=[1,2]); the same tuple is accepted
# args: --arg sizes=[1,2]
# expect-error: {file}:9:14: error: kernel 'list_arg': argument 'sizes' (--arg) is a list; NKI kernels do not accept list arguments (use a tuple)
import nki
from conflib import emit


@nki.jit
def list_arg(sizes=(1, 2)):
    return emit(list(sizes))
