# feature: limit: --max-steps lowers (or raises) the evaluation step budget
# needs-flag: --max-steps
# args: --max-steps 5000
# expect-error: {file}:12:5: error: evaluation step budget exceeded (5000 steps): the kernel's meta-program runs too long or does not terminate (raise the limit with --max-steps N)
import nki
from conflib import emit


@nki.jit
def step_budget_flag():
    total = 0
    for i in range(100000):
        total += i
    return emit([total])
