# feature: a legacy `buf[...] = nl.load(...)` is one DMA into the slice (ir/forward.cpp), at any start partition and with a mask: values as numpy's
# input: x = rng.standard_normal((256, 512)).astype(np.float32)
# golden: np.concatenate([x[:128] + x[128:], x[128:192] * 2], axis=0)
# tolerance: 1e-6 1e-6
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def load_slices(x):
    out = nl.ndarray((192, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    buf = nl.ndarray((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    ip, ix = nl.mgrid[0:128, 0:512]
    for m in nl.affine_range(2):
        buf[m, ip, ix] = nl.load(x[m * 128 + ip, ix], mask=(ix < 512))
    nl.store(out[0:128, :], value=nl.add(buf[0], buf[1]))
    part = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    part[64:128, :] = nl.load(x[128:192, :])
    doubled = nl.multiply(part[64:128, :], 2.0)
    nl.store(out[128:192, :], value=doubled)
    return out
