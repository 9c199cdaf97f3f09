# feature: nki.jit options that are accepted and ignored (mode=, debug_kernel=, show_compiler_tb=, experimental_flags=)
# golden: expect([1])
import nki
from conflib import emit, expect


@nki.jit(mode="trace", debug_kernel=True, show_compiler_tb=True, experimental_flags="skip-non-top-level-shared-hbm-check")
def jit_options():
    return emit([1])
