# feature: legacy nl.affine_range / sequential_range bodies see the Python numbers of loop entry in every iteration (the legacy tracer runs the body once): `addr += size` advances a mod_alloc address once, not once per iteration
# input: a = rng.standard_normal((4, 128, 64)).astype(np.float32)
# golden: a * 2.0
# golden: a[0] * 5.0
# tolerance: 1e-6 1e-6
import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.language as nl


@nki.jit
def traced_loops(a):
    out = nl.ndarray((4, 128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    after = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    addr = 1024
    scale = 1.0
    for i in nl.affine_range(4):
        buf = nl.ndarray((nl.par_dim(128), 64), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=addr))
        addr += 100000  # one buffer per traced body: 101024 after the loop, never 401024
        scale += 1.0
        buf[...] = nl.load(a[i])
        nl.store(out[i], value=nl.multiply(buf, scale))  # 2.0 in every iteration
    count = 0
    for j in nl.sequential_range(3):
        count += 3
    t = nl.load(a[0])
    nl.store(after, value=nl.multiply(t, float(addr // 100000 + count + 1)))  # 1 + 3 + 1
    return out, after
