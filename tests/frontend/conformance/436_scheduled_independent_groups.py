# feature: the back end's list scheduler and engine choice (ir/list_schedule.cpp) keep values: two independent score groups (matmul into PSUM, a legacy nl.copy out of PSUM that may run on the Scalar Engine, exp, a copy that may run on GpSimd) are reordered across each other and give numpy's results
# input: q = rng.standard_normal((2, 128, 128)).astype(np.float32) * 0.1
# input: k = rng.standard_normal((128, 512)).astype(np.float32) * 0.1
# golden: np.stack([np.exp(q[g].T @ k) for g in range(2)])
# tolerance: 1e-5 1e-6
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def two_groups(q, k):
    out = nl.ndarray((2, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    kt = nl.load(k)
    for g in nl.affine_range(2):
        qt = nl.load(q[g])
        ps = nl.matmul(qt, kt, transpose_x=True)
        s = nl.copy(ps)
        e = nl.exp(s)
        r = nl.copy(e)
        nl.store(out[g], value=r)
    return out
