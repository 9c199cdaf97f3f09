# feature: a legacy nisa.nc_matmul takes a PSUM operand (an nc_transpose result) and moves it to SBUF first, as nl.matmul does (nki-samples' flash_attn_bwd feeds nc_transpose's result to nc_matmul as the stationary)
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# input: c = rng.standard_normal((64, 96)).astype(np.float32)
# golden: a @ c
# golden: c.T @ a.T
# tolerance: 1e-4 1e-4
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def matmul_psum_operand(a, c):
    out1 = nl.ndarray((128, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((96, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)  # [128, 64]
    z = nl.load(c)  # [64, 96]
    xt = nisa.nc_transpose(x)  # [64, 128], in PSUM
    nl.store(out1, nl.copy(nisa.nc_matmul(xt, z), dtype=nl.float32))  # the stationary is in PSUM
    nl.store(out2, nl.copy(nisa.nc_matmul(z, xt), dtype=nl.float32))  # the moving is in PSUM
    return out1, out2
