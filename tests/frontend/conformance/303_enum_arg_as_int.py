# feature: an nki.isa enum argument given as its member's integer value (dge_mode=3 is dge_mode.none, oob_mode=0)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a
import nki
import nki.isa as nisa
import nki.language as nl

_DGE_NONE = 3


@nki.jit
def enum_arg_as_int(a):
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a, dge_mode=_DGE_NONE, oob_mode=0)
    nisa.dma_copy(dst=out, src=t, dge_mode=2)
    return out
