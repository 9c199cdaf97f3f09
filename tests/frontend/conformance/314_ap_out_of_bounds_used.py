# feature: rejected: an instruction operand that is a static .ap() view outside its tensor (located at the instruction)
# input: a = rng.standard_normal((4, 32)).astype(np.float32)
# expect-error: {file}:15:5: error: ap: partitions 1..4 are out of bounds for 't' with 4 partitions
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_out_of_bounds_used(a):
    out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((4, 32), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    part = t.ap(pattern=[[32, 4], [1, 8]], offset=32)
    nisa.dma_copy(dst=out, src=part)
    return out
