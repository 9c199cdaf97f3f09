# feature: .view(dtype) / reinterpret_cast reinterprets the bytes: the last contiguous dim is rescaled (fp32 -> bf16 pairs, fp32 -> int32 bits)
# input: a = rng.standard_normal((128, 16)).astype(np.float32)
# golden: (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
# golden: a.view(np.int32)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def view_dtype(a):
    t = nl.ndarray((128, 16), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    halves = t.view(nl.bfloat16)
    assert halves.shape == (128, 32) and halves.dtype == nl.bfloat16
    out1 = nl.ndarray((128, 32), nl.bfloat16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=halves)
    out2 = nl.ndarray((128, 16), nl.int32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=a.reinterpret_cast(nl.int32))
    return out1, out2
