# feature: neuronxcc.nki.compiler: sbuf.mod_alloc / psum.mod_alloc / sbuf.alloc(func) as nl.ndarray buffers (fixed placement), skip_middle_end_transformations, sequential_range(directives=no_reorder()), and neuronxcc.nki.isa.constants
# input: a = rng.standard_normal((128, 256)).astype(np.float32)
# golden: a * 2.0 + 1.0
# golden: a[:, :128].T @ a
# tolerance: 1e-4 1e-3
import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki.isa.constants import dge_mode


def at_partition_zero(base):
    def place(idx, pdim_size, fdim_size):
        return (0, base)
    return place


@ncc.skip_middle_end_transformations
@nki.jit
def mod_alloc(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    mm = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 256), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    nisa.dma_copy(dst=x, src=a, dge_mode=dge_mode.unknown)
    y = nl.ndarray((128, 256), dtype=a.dtype, buffer=ncc.sbuf.alloc(at_partition_zero(4096)))
    for i in nl.sequential_range(2, directives=ncc.no_reorder()):
        y[:, nl.ds(i * 128, 128)] = nl.add(nl.multiply(x[:, nl.ds(i * 128, 128)], 2.0), 1.0)
    nl.store(out, value=y)
    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=2))
    acc[...] = nisa.nc_matmul(x[:, 0:128], x)
    nl.store(mm, value=nl.copy(acc))
    return out, mm
