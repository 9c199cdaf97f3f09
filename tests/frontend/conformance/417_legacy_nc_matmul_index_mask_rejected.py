# feature: rejected: legacy nisa.nc_matmul with a mask over index tiles (which operand axis it would restrict is not documented), a located error rather than a guess
# expect-error: {file}:16:9: error: nc_matmul: a mask= over index tiles is not supported yet by nki-sim (only a compile-time condition such as (i * 128 < n)); restrict the operands with slices instead
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: b = rng.standard_normal((128, 96)).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def index_masked_matmul(a, b):
    out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.load(a)
    m = nl.load(b)
    i_f = nl.arange(96)[None, :]
    r = nisa.nc_matmul(s, m, mask=(i_f < 50))
    nl.store(out, value=nl.copy(r))
    return out
