# feature: print runs at compile time and writes to stderr prefixed with the kernel location (sep=, end=, several args, f-strings)
# golden: expect([1])
# expect-stderr: {file}:16: compiling print_kernel with 3 tiles
# expect-stderr: {file}:17: a-b-c
# expect-stderr: {file}:11: helper says 42 [1, 2] {'k': None}
import nki
from conflib import emit, expect


def helper(v):
    print("helper says", v, [1, 2], {"k": None})


@nki.jit
def print_kernel(n=3):
    print(f"compiling print_kernel with {n} tiles")
    print("a", "b", "c", sep="-")
    helper(42)
    return emit([1])
