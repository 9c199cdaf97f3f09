# feature: legacy kernels may slice past the end of a tensor when the op's mask= keeps every access inside it: x[128:256] of 200 rows with a partition mask (i_p + 128 < 200), in nisa.dma_copy, nl.load and nl.store
# input: a = rng.standard_normal((200, 6, 8)).astype(np.float32)
# golden: np.concatenate([a[:, :, :5] * 3.0, np.zeros((200, 6, 3), dtype=np.float32)], axis=2)
# tolerance: 1e-6 1e-6
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def tail_tiles(a):
    out = nl.ndarray((200, 6, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(2):
        i_p = nl.arange(128)[:, None, None] + t * 128
        i_w = nl.arange(8)[None, None, :]
        buf = nl.zeros((nl.par_dim(128), 6, 8), dtype=a.dtype, buffer=nl.sbuf)
        # the slice runs to 256 on the second tile; the mask keeps rows below 200 and columns below 5
        nisa.dma_copy(dst=buf[:, :, :], src=a[t * 128:(t + 1) * 128, :, :], mask=(i_p < 200) & (i_w < 5))
        again = nl.load(a[t * 128:(t + 1) * 128, :, :], mask=(i_p < 200))
        scaled = nl.multiply(buf, 2.0)
        total = nl.add(scaled, nl.multiply(again, 0.0))
        total = nl.add(total, buf)
        nl.store(out[t * 128:(t + 1) * 128, :, :], value=total, mask=(i_p < 200))
    return out
