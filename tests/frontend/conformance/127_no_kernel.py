# feature: a file without any @nki.jit kernel (only host code) is an error naming the fix
# expect-error: {file}: error: no @nki.jit kernel in file; decorate the kernel with @nki.jit or choose a function with -k NAME
import numpy as np


def host(x):
    return np.asarray(x)
