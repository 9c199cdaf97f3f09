# feature: limit: an infinite compile-time loop is a located error within seconds (evaluation step budget), never a hang
# expect-error: {file}:8:5: error: evaluation step budget exceeded (100000000 steps): the kernel's meta-program runs too long or does not terminate (raise the limit with --max-steps N)
import nki
from conflib import emit


def converge(x):
    while x != 0:
        x = x + 1 if x > 0 else x - 1
    return x


@nki.jit
def step_budget():
    return emit([converge(1)])
