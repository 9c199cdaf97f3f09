# feature: rejected: a kernel launched on a grid returns a private nl.hbm tensor (each instance has its own)
# args: --grid 2
# input: a = rng.standard_normal((8, 8)).astype(np.float32)
# expect-error: {file}:11:11: error: kernel output 'out' must be allocated in nl.shared_hbm, but it is in hbm
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def hbm_out_grid(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.hbm)
    nl.store(out, value=nl.load(a))
    return out
