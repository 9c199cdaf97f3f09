# feature: rejected: list-typed kernel arguments (a list default; tuples are fine)
# expect-error: {file}:8:35: error: kernel 'list_default': argument 'sizes' defaults to a list; NKI kernels do not accept list arguments (use a tuple)
import nki
from conflib import emit


@nki.jit
def list_default(shape=(128, 64), sizes=[1, 2]):
    return emit(list(shape) + sizes)
