# feature: rejected: keyword-only parameters (after *) in a kernel signature (fine in helpers)
# expect-error: {file}:12:30: error: kernel 'kwonly_signature': keyword-only parameters (after '*') are not supported in NKI kernel signatures
import nki
from conflib import emit


def helper(x, *, scale=2):
    return x * scale


@nki.jit
def kwonly_signature(n=1, *, scale=2):
    return emit([helper(n, scale=scale)])
