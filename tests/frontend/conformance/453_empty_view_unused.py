# feature: `nl.ds(start, 0)` and `t[k:k]` give a view of no elements (shape 0 on that dimension): an LNC=2 kernel whose last core takes the remainder of 1 row hands the other core an empty shard, and that core issues nothing on it (nki-library's cross_entropy_forward at one position)
# input: a = rng.standard_normal((1, 64)).astype(np.float32)
# args: --lnc 2
# golden: a * 3.0
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def empty_shard(a):
    n, f = a.shape
    out = nl.ndarray((n, f), dtype=a.dtype, buffer=nl.shared_hbm)
    cores, core = nl.num_programs(0), nl.program_id(0)
    share = n // cores
    rows = n - core * share if core == cores - 1 else share
    mine = a[nl.ds(core * share, rows)]
    dst = out[core * share:core * share + rows]
    assert mine.shape == (rows, f) and dst.shape == (rows, f)
    if rows > 0:
        t = nl.ndarray((rows, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=mine)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=3.0)
        nisa.dma_copy(dst=dst, src=t)
    return out
