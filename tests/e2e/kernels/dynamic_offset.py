"""Dynamic offsets on on-chip operands and the remaining view methods, for tests/e2e/test_dynamic_offset.py
(docs/dynamic-offsets.md): .ap(scalar_offset=) on SBUF src and dst operands of compute instructions, a
register offset inside nl.fori_loop, select() with a tensor index on SBUF and HBM, vector_select, rearrange."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def copy_src_offset(x, idx):
    """out = x[:, idx[0, 0], :]: the Vector engine reads row idx of each partition (indirect_dim=1)."""
    P, R, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=t.ap([[R * F, P], [1, F]], scalar_offset=i, indirect_dim=1))
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def copy_dst_offset(x, idx):
    """out = zeros with out[:, idx[0, 0], :] = 2 * x: tensor_scalar writes through a dynamic dst."""
    P, F = x.shape
    R = 4
    out = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=o, value=0.0)
    nisa.tensor_scalar(dst=o.ap([[R * F, P], [1, F]], scalar_offset=i, indirect_dim=1), data=t,
                       op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def sliding_window(x):
    """out[:, j] = x[:, j] + x[:, j + 1] + x[:, j + 2] + x[:, j + 3] for j < F - 3: a fori_loop whose induction
    register offsets the window by one element per iteration (indirect_dim=1 of a 2-D tile: stride 1)."""
    P, F = x.shape
    W = F - 3
    out = nl.ndarray((P, W), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    acc = nl.ndarray((P, W), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)

    def body(i):
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t.ap([[F, P], [1, W]], scalar_offset=i, indirect_dim=1),
                           op=nl.add)

    nl.fori_loop(0, 4, body)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def select_sbuf(x, idx):
    """out = x[:, idx, :] + x[:, idx, :] through t.select(1, i) on both inputs of tensor_tensor."""
    P, R, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    row = t.select(1, i)
    nisa.tensor_tensor(dst=o, data1=row, data2=row, op=nl.add)
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def select_register(x, idx):
    """out = x[:, idx, :] with the index in a register (nisa.register_load) on the Scalar engine."""
    P, R, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    r = nisa.register_alloc()
    nisa.register_load(r, idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=o, data=t.select(1, r), op=nl.copy)
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def select_hbm(x, idx):
    """out = x[idx[0, 0]]: select(0, i) of an HBM tensor is a DMA scalar offset."""
    B, P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=o, src=x.select(0, i))
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def vector_gather(x, idx):
    """out = x[idx[:, 0]]: vector_select(0, offs) gathers one row of x per partition."""
    R, F = x.shape
    P = idx.shape[0]
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=o, src=x.vector_select(0, it))
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def rearrange_views(x):
    """out0 = x viewed as (p, a, b) and transposed to (p, b, a) on chip; out1 = rows of x interleaved by an
    HBM rearrange "(a b) f -> (b a) f" with a = 2."""
    P, F = x.shape
    out0 = nl.ndarray((P, F // 4, 4), dtype=x.dtype, buffer=nl.shared_hbm)
    out1 = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    o = nl.ndarray((P, F // 4, 4), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=t.rearrange("p (a b)", "p b a", {"a": 4}))
    nisa.dma_copy(dst=out0, src=o)
    s = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=x.rearrange("(a b) f", "b a f", {"a": 2}))
    nisa.dma_copy(dst=out1, src=s)
    return out0, out1


@nki.jit
def dynamic_cost(x, idx):
    """One small tensor_copy with a dynamic src: its cost is the MIN_II_DYNAMIC floor."""
    P, R, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, R, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=i, src=idx)
    o = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=t.select(1, i))
    nisa.tensor_copy(dst=o, src=t[:, 0, :])
    nisa.dma_copy(dst=out, src=o)
    return out


@nki.jit
def partition_offset(x, idx):
    """A dynamic offset along the partition dimension of an on-chip tensor: a compile error."""
    P, F = x.shape
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    i = nl.ndarray((1, 1), dtype=idx.dtype, buffer=nl.sbuf)
    v = t.ap([[F, 64], [1, F]], scalar_offset=i, indirect_dim=0)
    return None


@nki.jit
def bad_rearrange(x):
    """A dst group whose dimensions are not contiguous: a compile error."""
    P, F = x.shape
    t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    v = t.rearrange("p (a b)", "p (b a)", {"a": 4})
    return None
