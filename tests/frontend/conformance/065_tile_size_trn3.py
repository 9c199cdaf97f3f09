# feature: nl.tile_size per target (trn3: 32 MiB SBUF, NeuronCore v4), used in shapes and arithmetic
# args: --target trn3
# golden: expect([128, 32 * 1024 * 1024, 4, 256 * 1024 - 16648, 4])
import nki
import nki.isa as nisa
import nki.language as nl
from conflib import emit, expect

P = nl.tile_size.pmax  # usable at module level too


@nki.jit
def tile_size_trn3():
    t = nl.ndarray((P, nl.tile_size.psum_bank_fmax), nl.float32, buffer=nl.sbuf)
    version = nisa.get_nc_version()
    return emit([t.shape[0], nl.tile_size.sbuf_size_bytes, 4 if version == nisa.nc_version.gen4 else 0,
                 nl.tile_size.sbuf_fmax_bytes, t.ndim * 2])
