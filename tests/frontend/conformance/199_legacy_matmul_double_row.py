# feature: legacy nisa.nc_matmul(a, b, perf_mode='double_row_gen3') on (P, 2, F) fp8 tiles returns the (F_a, F_b) product contracting the partitions and the pair axis
# input: a = rng.choice(np.array([0x38, 0x3C, 0x40, 0xBC], np.uint8), (128, 2, 4))
# input: b = rng.choice(np.array([0x38, 0x3C, 0x40, 0xBC], np.uint8), (128, 2, 64))
# golden: expected(a, b)
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

E5M2 = {0x38: 0.5, 0x3C: 1.0, 0x40: 2.0, 0xBC: -1.0}


def expected(a, b):
    fa = np.vectorize(E5M2.get)(a).astype(np.float64)
    fb = np.vectorize(E5M2.get)(b).astype(np.float64)
    return np.einsum("kli,klj->ij", fa, fb).astype(np.float32)


@nki.jit(platform_target="trn2")
def double_row(a, b):
    out = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a.view(nl.float8_e5m2))
    y = nl.load(b.view(nl.float8_e5m2))
    nl.store(out, value=nisa.nc_matmul(x, y, perf_mode="double_row_gen3"))
    return out
