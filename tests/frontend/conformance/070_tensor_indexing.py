# feature: tensor indexing: ints, negative ints, slices with steps, nl.ds, '...'; on-chip ints keep dims (>= 2 dims), HBM ints drop them
# input: a = np.arange(4 * 16 * 8, dtype=np.float32).reshape(4, 16, 8)
# golden: a[2, 3:11, ::2]
# golden: a[-1, ::3, 5]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tensor_indexing(a):
    assert a[0].shape == (16, 8) and a[1, 2].shape == (8,) and a[1, 2, 3].shape == (1,)
    assert a[..., 0].shape == (4, 16) and a[nl.ds(1, 2), ...].shape == (2, 16, 8) and a[-1, -2:].shape == (2, 8)
    s = nl.ndarray((16, 4, 8), nl.float32, buffer=nl.sbuf)
    assert s[0].shape == (1, 4, 8) and s[:, 1].shape == (16, 8) and s[0, 0, 0].shape == (1, 1)
    assert s[3, 2, 1:5].shape == (1, 4)

    out1 = nl.ndarray((8, 4), nl.float32, buffer=nl.shared_hbm)
    t1 = nl.ndarray((8, 4), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t1, src=a[2, 3:11, ::2])
    nisa.dma_copy(dst=out1, src=t1)

    out2 = nl.ndarray((6,), nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out2, src=a[-1, ::3, 5])
    return out1, out2
