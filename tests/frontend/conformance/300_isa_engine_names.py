# feature: nki.isa.tensor_engine / vector_engine / scalar_engine / gpsimd_engine / unknown_engine: the module-level (deprecated) names of nki.isa.engine members, usable as engine=
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a * 2.0 + 1.0
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def isa_engine_names(a):
    assert nisa.tensor_engine == nisa.engine.tensor and nisa.vector_engine == nisa.engine.vector
    assert nisa.scalar_engine == nisa.engine.scalar and nisa.gpsimd_engine == nisa.engine.gpsimd
    assert nisa.unknown_engine == nisa.engine.unknown and nisa.gpsimd_engine != nisa.vector_engine
    out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0, engine=nisa.gpsimd_engine)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0, engine=nisa.vector_engine)
    nisa.dma_copy(dst=out, src=t)
    return out
