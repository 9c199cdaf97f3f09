# feature: rejected: the global statement in code the kernel runs (host functions may use it), with the call chain
# expect-error: {file}:12:5: error: the 'global' statement is not supported in NKI kernels (in bump()); pass the value as an argument or return it
# expect-stderr: {file}:19:5: note: called from here
import nki
from conflib import emit

COUNT = 0
HOST_CALLS = 0


def bump():
    global COUNT
    COUNT += 1
    return COUNT


@nki.jit
def reject_global():
    bump()
    return emit([COUNT])


def host_only():
    global HOST_CALLS
    HOST_CALLS += 1
