# feature: rejected: nki.jit(platform_target=...) (NKI 0.3+; the target comes from --target)
# expect-error: {file}:7:2: error: nki.jit(): platform_target= is not supported (select the target with --target)
import nki
from conflib import emit


@nki.jit(platform_target="trn2")
def platform_target():
    return emit([1])
