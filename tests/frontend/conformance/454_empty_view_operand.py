# feature: an instruction given an empty view (`nl.ds(start, 0)`) is a located error at the instruction
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# expect-error: {file}:14:5: error: dma_copy: operand 'dst' is empty (a dimension has size 0)
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def empty_operand(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=t[0:0], src=a[nl.ds(8, 0)])
    nisa.dma_copy(dst=out, src=t)
    return out
