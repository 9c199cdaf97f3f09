# feature: nki.isa.constants holds every nki.isa enum (matmul_perf_mode, dge_mode, oob_mode, engine, nc_version, reduce_cmd, dma_engine), the same objects as nki.isa's
# input: a = rng.standard_normal((128, 128)).astype(np.float32)
# input: b = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a.T @ b
# tolerance: 1e-4 1e-4
import nki
import nki.isa as nisa
import nki.language as nl
from nki.isa.constants import dge_mode, dma_engine, engine, matmul_perf_mode, nc_version, oob_mode, reduce_cmd


@nki.jit
def isa_constants_module(a, b):
    assert matmul_perf_mode.none == nisa.matmul_perf_mode.none and engine.vector == nisa.engine.vector
    assert nc_version.gen3 == nisa.nc_version.gen3 and reduce_cmd.idle == nisa.reduce_cmd.idle
    assert dma_engine.dma == nisa.dma_engine.dma and oob_mode.error == nisa.oob_mode.error
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    sa = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    sb = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=sa, src=a, dge_mode=dge_mode.none)
    nisa.dma_copy(dst=sb, src=b)
    p = nl.ndarray((128, 64), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=p, stationary=sa, moving=sb, perf_mode=matmul_perf_mode.none)
    r = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=p)
    nisa.dma_copy(dst=out, src=r)
    return out
