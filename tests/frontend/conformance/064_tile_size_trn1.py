# feature: nl.tile_size constants are plain ints per target (trn1: 24 MiB SBUF) and nisa.get_nc_version()
# args: --target trn1
# golden: expect([128, 512, 2048, 8, 128, 512, 24 * 1024 * 1024, 2])
import nki
import nki.isa as nisa
import nki.language as nl
from conflib import emit, expect


@nki.jit
def tile_size_trn1():
    ts = nl.tile_size
    version = {"gen2": 2, "gen3": 3, "gen4": 4}[nisa.get_nc_version().name]
    return emit([ts.pmax, ts.psum_bank_fmax, ts.psum_bank_fmax_bytes, ts.psum_num_banks, ts.gemm_stationary_fmax,
                 ts.gemm_moving_fmax, ts.sbuf_size_bytes, version])
