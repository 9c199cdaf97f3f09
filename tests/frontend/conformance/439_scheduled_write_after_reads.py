# feature: an automatically allocated tile never shares bytes with a tensor placed with address= while both are live (the allocator kept out of the placed bytes only from their first use on: xt, live from the start, took t's bytes and was overwritten); and the list scheduler keeps a write (the GpSimd memset) after the reads of what it overwrites (t read on the Scalar Engine behind a long activation and on the Vector Engine)
# input: x = rng.standard_normal((128, 4096)).astype(np.float32)
# golden: np.concatenate([np.full((128, 128), np.exp(3.0)), np.full((128, 128), 6.0), np.exp(x[:, :128])], axis=1)
# tolerance: 1e-5 1e-6
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def write_after_reads(x):
    out = nl.ndarray((128, 384), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    nisa.memset(dst=t, value=3.0)
    s = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=s, op=nl.exp, data=xt)
    a = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=a, op=nl.exp, data=t)
    b = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=b, data=t, op0=nl.multiply, operand0=2.0)
    nisa.memset(dst=t, value=0.0, engine=nisa.gpsimd_engine)
    nisa.dma_copy(dst=out[:, 0:128], src=a)
    nisa.dma_copy(dst=out[:, 128:256], src=b)
    nisa.dma_copy(dst=out[:, 256:384], src=s[:, 0:128])
    return out
