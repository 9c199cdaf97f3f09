# feature: .ap on SBUF: the first pair is the partition dim (stride = elements per partition), offsets select start partition and column, dtype= reinterprets
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a[32:64, 16:48]
# golden: (a[:, 0:8].view(np.uint16).astype(np.uint32) << 16).view(np.float32)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_sbuf(a):
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    v = t.ap([[64, 32], [1, 32]], offset=32 * 64 + 16)
    assert v.shape == (32, 32)
    out1 = nl.ndarray((32, 32), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out1, src=v)
    h = t.ap([[128, 128], [1, 16]], dtype=nl.bfloat16)  # 128 bf16 elements per partition
    out2 = nl.ndarray((128, 16), nl.bfloat16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=h)
    return out1, out2
