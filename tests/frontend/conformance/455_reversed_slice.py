# feature: a slice whose stop is before its start is an error (an empty one, start == stop, is a view of no elements)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:12:32: error: slice [40:32] is reversed for dimension 1 of size 64
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def reversed_slice(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a[:, 40:32])
    return out
