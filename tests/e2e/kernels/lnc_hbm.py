"""LNC=2 kernels for tests/e2e/test_lnc_hbm_share.py: HBM bandwidth shared by the two cores."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def copy_rows(a_input, only_core0=False):
    """out = a; core c copies rows [c * M / n, (c + 1) * M / n) through SBUF, or core 0 copies everything."""
    M, N = a_input.shape
    out = nl.ndarray((M, N), dtype=a_input.dtype, buffer=nl.shared_hbm)
    n = 1 if only_core0 else nl.num_programs()
    pid = nl.program_id(0)
    rows = M // n
    if pid < n:
        for t in nl.affine_range(rows // 128):
            r0 = pid * rows + t * 128
            x = nl.ndarray((128, N), dtype=a_input.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a_input[r0:r0 + 128, :])
            nisa.dma_copy(dst=out[r0:r0 + 128, :], src=x)
    return out
