# feature: nc_matmul(is_transpose=True) of a float16 tile into a float32 PSUM tile: the transposed values, exact (NaN and infinities too)
# input: a = np.concatenate([rng.standard_normal((128, 125)), np.array([[np.inf, -np.inf, np.nan]] * 128)], axis=1).astype(np.float32)
# golden: a.T.astype(np.float16).astype(np.float32)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transpose_fp32_dst(a):
    out = nl.ndarray((128, 128), nl.float32, buffer=nl.shared_hbm)
    t32 = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t32, src=a)
    t = nl.ndarray((128, 128), nl.float16, buffer=nl.sbuf)
    nisa.tensor_copy(dst=t, src=t32)
    ident = nl.shared_identity_matrix(128, dtype=nl.float16)
    p = nl.ndarray((128, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=t, moving=ident, is_transpose=True)
    r = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=p)
    nisa.dma_copy(dst=out, src=r)
    return out
