"""SBUF-resident helpers (plain functions, not @nki.jit) called from Python with nkisim.sbuf / sbuf_output."""
import nki
import nki.isa as nisa
import nki.language as nl


def affine(x, out, scale, shift=1.0):
    """out = x * scale + shift; x and out are SBUF tiles."""
    nisa.tensor_scalar(dst=out, data=x, op0=nl.multiply, operand0=scale, op1=nl.add, operand1=shift)


def sum_and_stats(x, y, out, row_max, total_hbm=None):
    """out = x + y (SBUF); row_max[p, 0] = max over the free axis of out (SBUF); with total_hbm also returns an
    HBM copy of out * 2 (the helper's own return value)."""
    nisa.tensor_tensor(dst=out, data1=x, data2=y, op=nl.add)
    nisa.tensor_reduce(dst=row_max, data=out, op=nl.maximum, axis=1)
    if total_hbm is None:
        return None
    doubled = nl.ndarray(out.shape, dtype=out.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=doubled, data=out, op0=nl.multiply, operand0=2.0)
    result = nl.ndarray(out.shape, dtype=out.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=result, src=doubled)
    return result


def halves(x, out):
    """Each core of an LNC=2 call negates its half of the columns of x into out (the other half untouched)."""
    n = x.shape[1] // nl.num_programs()
    cols = nl.ds(nl.program_id(0) * n, n)
    nisa.tensor_scalar(dst=out[:, cols], data=x[:, cols], op0=nl.multiply, operand0=-1.0)


def affine_returning(x, first, second):
    """first = x + 1, second = x * 2; returns second (an SBUF tile passed in)."""
    nisa.tensor_scalar(dst=first, data=x, op0=nl.add, operand0=1.0)
    nisa.tensor_scalar(dst=second, data=x, op0=nl.multiply, operand0=2.0)
    return second


@nki.jit
def jit_affine(x, out, scale):
    """The same as affine, decorated: SBUF arguments work for nki.jit functions too."""
    affine(x, out, scale, 0.0)
