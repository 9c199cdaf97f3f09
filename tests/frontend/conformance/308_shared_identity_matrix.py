# feature: nl.shared_identity_matrix(n, dtype): an (n, n) SBUF identity (built with a GpSimd iota and a compare), used to transpose on the PE
# input: a = rng.standard_normal((96, 64)).astype(np.float32)
# golden: a.T
# golden: np.eye(32, dtype=np.float32)
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def shared_identity_matrix(a):
    out = nl.ndarray((64, 96), nl.float32, buffer=nl.shared_hbm)
    eye_out = nl.ndarray((32, 32), nl.float32, buffer=nl.shared_hbm)
    ident = nl.shared_identity_matrix(96, dtype=nl.float32)
    t = nl.ndarray((96, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    p = nl.ndarray((64, 96), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=t, moving=ident)
    r = nl.ndarray((64, 96), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=p)
    nisa.dma_copy(dst=out, src=r)
    e = nl.ndarray((32, 32), nl.uint8, buffer=nl.sbuf)
    nl.shared_identity_matrix(32, dst=e)
    ef = nl.ndarray((32, 32), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=ef, src=e)
    nisa.dma_copy(dst=eye_out, src=ef)
    return out, eye_out
