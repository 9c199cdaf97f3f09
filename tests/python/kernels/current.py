"""Current-API (`import nki`) kernels called from Python by tests/python."""
import enum
from dataclasses import dataclass

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def tile_add(a, b):
    """out = a + b for one [128, F] tile."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    tc = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=tc, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=tc)
    return out


@nki.jit
def binary_op(a, b, op=nl.add, scale=1.0, out_dtype=None):
    """(a op b) * scale, an op object and a dtype passed from the host."""
    dt = out_dtype if out_dtype is not None else a.dtype
    out = nl.ndarray(a.shape, dtype=dt, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    tc = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=tc, data1=ta, data2=tb, op=op)
    td = nl.ndarray(a.shape, dtype=dt, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=td, data=tc, op0=nl.multiply, operand0=scale)
    nisa.dma_copy(dst=out, src=td)
    return out


@nki.jit
def two_outputs(a):
    """(a + 1, a * 2), in that order."""
    p = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    q = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=u, data=t, op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=p, src=u)
    nisa.tensor_scalar(dst=u, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=q, src=u)
    return p, q


@nki.jit
def scale_in_place(a, factor):
    """Writes a * factor back into the input a; returns nothing."""
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=factor)
    nisa.dma_copy(dst=a, src=t)


class Mode(enum.Enum):
    ADD = 1
    SUB = 2


@dataclass
class Config(nl.NKIObject):
    mode: Mode
    bias: float = 0.0
    weight: object = None  # an optional tensor


@nki.jit
def configured(a, cfg):
    """a (+|-) weight + bias, chosen by a dataclass config holding an enum, a float and an optional tensor."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    if cfg.weight is not None:
        w = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=w, src=cfg.weight)
        op = nl.add if cfg.mode == Mode.ADD else nl.subtract
        nisa.tensor_tensor(dst=t, data1=t, data2=w, op=op)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=cfg.bias)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def sum_tensors(xs, opts):
    """xs[0] + xs[1] (a tuple of tensors) times opts["scale"] (a dict)."""
    a, b = xs
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.tensor_scalar(dst=ta, data=ta, op0=nl.multiply, operand0=opts["scale"])
    nisa.dma_copy(dst=out, src=ta)
    return out


@nki.jit
def lnc_rows(a):
    """out = a + program_id: core c of nl.num_programs() handles rows [c * M / n, (c + 1) * M / n)."""
    M, N = a.shape
    out = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    n = nl.num_programs()
    pid = nl.program_id(0)
    rows = M // n
    t = nl.ndarray((rows, N), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * rows:(pid + 1) * rows, :])
    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=float(n))
    nisa.dma_copy(dst=out[pid * rows:(pid + 1) * rows, :], src=t)
    return out


@nki.jit
def bad_shape(a):
    """A located error: the tile is too tall."""
    t = nl.ndarray((256, 4), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    return a


@nki.jit
def to_bf16(a):
    """a rounded to bfloat16."""
    out = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    u = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_copy(dst=u, src=t)
    nisa.dma_copy(dst=out, src=u)
    return out


@nki.jit
def spin(a, n):
    """A long compile-time loop (for the interrupt test)."""
    k = 0
    for i in range(n):
        k = k + 1
    return a


@nki.jit
def test_named_kernel(a):
    """Named test_*: pytest must not collect it."""
    return a


@nki.jit
def gather_rows(table, idx, oob=nisa.oob_mode.error):
    """out[p] = table[idx[p]] (an indirect DMA, oob_mode=error): an index past the end is an error."""
    R, F = table.shape
    P = idx.shape[0]
    out = nl.ndarray((P, F), dtype=table.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((P, F), dtype=table.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=table.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0), oob_mode=oob)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def bool_to_float(p):
    """A bool tensor as 0.0 / 1.0."""
    out = nl.ndarray(p.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray(p.shape, dtype=p.dtype, buffer=nl.sbuf)
    u = nl.ndarray(p.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=p)
    nisa.tensor_copy(dst=u, src=t)
    nisa.dma_copy(dst=out, src=u)
    return out


@dataclass
class ConstFiles(nl.NKIObject):
    files: dict = None


@nki.jit
def add_host_constant(a, consts):
    """a + the constant the host saved as an .npy file and named in `consts` (nl.shared_constant(name))."""
    c = nl.shared_constant(consts.files["bias"])
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tc = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tc, src=c)
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tc, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out
