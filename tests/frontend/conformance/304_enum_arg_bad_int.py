# feature: rejected: an integer that is no member's value of the nki.isa enum
# expect-error: {file}:13:5: error: dma_copy: dge_mode=7 is not a nki.isa.dge_mode value
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def enum_arg_bad_int(a):
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a, dge_mode=7)
    nisa.dma_copy(dst=out, src=t)
    return out
