# feature: rejected: a legacy slice past the end of a tensor whose mask does not keep the access inside it is the slice's located error (raised where the view is used)
# expect-error: {file}:17:5: error: slice [128:256] is out of bounds for dimension 0 of size 200 (a mask= keeping the access within the tensor would allow it)
# input: a = rng.standard_normal((200, 8)).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def tail_tiles(a):
    out = nl.ndarray((256, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    first = nl.load(a[0:128, :])
    nl.store(out[0:128, :], value=first)
    buf = nl.zeros((nl.par_dim(128), 8), dtype=a.dtype, buffer=nl.sbuf)
    # the mask keeps 100 rows, but rows 200..227 of the slice are past the end
    nisa.dma_copy(dst=buf[:, :], src=a[128:256, :], mask=(i_p < 100))
    nl.store(out[128:256, :], value=buf)
    return out
