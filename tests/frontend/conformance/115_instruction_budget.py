# feature: limit: a kernel emitting more instructions than the budget (--max-instructions) is a located error
# needs-flag: --max-instructions
# args: --max-instructions 1000
# expect-error: {file}:14:9: error: instruction budget exceeded: the kernel emits more than 1000 instructions (raise the limit with --max-instructions N)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def instruction_budget():
    t = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf)
    for i in range(100000):
        nisa.memset(dst=t, value=float(i))
    return None
