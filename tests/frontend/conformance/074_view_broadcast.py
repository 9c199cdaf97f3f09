# feature: .broadcast(dim, size) of a size-1 dim (stride 0) as a compute operand: a row-wise add of a column
# input: a = rng.standard_normal((128, 32)).astype(np.float32)
# input: c = rng.standard_normal((128, 1)).astype(np.float32)
# golden: a + c
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_broadcast(a, c):
    t = nl.ndarray((128, 32), nl.float32, buffer=nl.sbuf)
    col = nl.ndarray((128, 1), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=col, src=c)
    wide = col.broadcast(1, 32)
    assert wide.shape == (128, 32) and wide.strides[1] == 0
    nisa.tensor_tensor(dst=t, data1=t, data2=wide, op=nl.add)
    out = nl.ndarray((128, 32), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out
