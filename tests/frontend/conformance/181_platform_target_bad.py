# feature: rejected: platform_target= naming no target nki-sim knows
# expect-error: {file}:6:2: error: jit(): platform_target must be 'trn1', 'trn2' or 'trn3', got 'trn9'
import neuronxcc.nki as nki


@nki.jit(platform_target="trn9")
def bad_target(a):
    return a
