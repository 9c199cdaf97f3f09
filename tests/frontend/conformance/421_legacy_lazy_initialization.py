# feature: legacy nl.zeros / nl.full(..., lazy_initialization=True|False) (undocumented keyword of the old nki-samples kernels): accepted, the tile holds the fill either way
# input: a = rng.standard_normal((256, 64)).astype(np.float32)
# golden: a[0:128].T.astype(np.float64) @ a[0:128] + a[128:256].T.astype(np.float64) @ a[128:256]
# golden: np.full((64, 64), -3.5, dtype=np.float32)
# tolerance: 1e-4 1e-4
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def lazy_init(a):
    gram = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    filled = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((nl.par_dim(64), 64), dtype=nl.float32, buffer=nl.psum, lazy_initialization=True)
    for k in nl.affine_range(2):
        t = nl.load(a[k * 128:(k + 1) * 128, :])
        acc += nisa.nc_matmul(t, t)
    nl.store(gram, value=nl.copy(acc))
    f = nl.full((nl.par_dim(64), 64), fill_value=-3.5, dtype=nl.float32, buffer=nl.sbuf, lazy_initialization=False)
    nl.store(filled, value=f)
    return gram, filled
