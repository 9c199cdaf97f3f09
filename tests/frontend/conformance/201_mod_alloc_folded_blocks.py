# feature: mod_alloc folds block tensors modulo their tile counts: 4 PSUM blocks on 2 banks (each logical block's `+=` matmul chain starts fresh) and 4 SBUF blocks on 2 tiles, reused in order
# input: a = rng.standard_normal((128, 512)).astype(np.float32)
# input: b = rng.standard_normal((128, 4, 128)).astype(np.float32)
# golden: np.concatenate([a[:, i * 128:(i + 1) * 128].T @ (b[:, i, :] + b[:, i, :]) for i in range(4)], axis=1)
# tolerance: 1e-4 1e-3
import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def folded(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    acc = nl.ndarray((4, nl.par_dim(128), 128), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=2, num_bank_tiles=(2,)))
    rhs = nl.ndarray((4, nl.par_dim(128), 128), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=8192, num_free_tiles=(2,)))
    res = nl.ndarray((128, 512), dtype=nl.float32)
    for i in nl.sequential_range(4):
        rhs[i] = nl.load(b[:, i, :])
        for rep in nl.static_range(2):
            acc[i] += nisa.nc_matmul(x[:, nl.ds(i * 128, 128)], rhs[i])
        res[:, nl.ds(i * 128, 128)] = nl.copy(acc[i])
    nl.store(out, value=res)
    return out
