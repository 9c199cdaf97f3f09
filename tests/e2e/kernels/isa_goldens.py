"""Small one-instruction kernels for tests/e2e/test_isa_goldens.py: each loads its inputs into SBUF, runs one
nki.isa instruction (the dtypes, ops and options come from --arg) and stores the result."""
import nki
import nki.language as nl
import nki.isa as nisa

DT = {"float32": nl.float32, "bfloat16": nl.bfloat16, "float16": nl.float16, "int32": nl.int32,
      "int8": nl.int8, "uint8": nl.uint8, "float8_e4m3": nl.float8_e4m3, "float8_e5m2": nl.float8_e5m2,
      "int16": nl.int16, "uint32": nl.uint32}


def load(t, dtype=None):
    tile = nl.ndarray(t.shape, dtype=DT[dtype] if dtype else t.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=t)
    return tile


def store(tile):
    out = nl.ndarray(tile.shape, dtype=tile.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=tile)
    return out


@nki.jit
def k_tensor_tensor(a, b, op="add", in_dtype="float32", out_dtype="float32", engine="vector"):
    x, y = load(a, in_dtype), load(b, in_dtype)
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    eng = nisa.engine.vector if engine == "vector" else nisa.engine.gpsimd
    nisa.tensor_tensor(dst=r, data1=x, data2=y, op=getattr(nl, op), engine=eng)
    return store(r)


@nki.jit
def k_tensor_scalar(a, s, op0="multiply", imm0=2.0, op1="add", imm1=None, reverse0=False, in_dtype="float32",
                    out_dtype="float32", tile_operand=False):
    x = load(a, in_dtype)
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    operand0 = load(s) if tile_operand else imm0
    if imm1 is None:
        nisa.tensor_scalar(dst=r, data=x, op0=getattr(nl, op0), operand0=operand0, reverse0=reverse0)
    else:
        nisa.tensor_scalar(dst=r, data=x, op0=getattr(nl, op0), operand0=operand0, reverse0=reverse0,
                           op1=getattr(nl, op1), operand1=imm1)
    return store(r)


@nki.jit
def k_activation(a, bias, func="exp", scale=1.0, out_dtype="float32"):
    x, b = load(a), load(bias)
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    nisa.activation(dst=r, op=getattr(nl, func), data=x, bias=b, scale=scale)
    return store(r)


@nki.jit
def k_tensor_copy(a, in_dtype="float32", out_dtype="bfloat16", engine="vector"):
    x = load(a, in_dtype)
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    eng = {"vector": nisa.engine.vector, "scalar": nisa.engine.scalar, "gpsimd": nisa.engine.gpsimd}[engine]
    nisa.tensor_copy(dst=r, src=x, engine=eng)
    return store(r)


@nki.jit
def k_tensor_reduce(a, op="add", negate=False, keepdims=True, in_dtype="float32", out_dtype="float32"):
    x = load(a, in_dtype)
    P, F = a.shape
    r = nl.ndarray((P, 1) if keepdims else (P,), dtype=DT[out_dtype], buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r, op=getattr(nl, op), data=x, axis=1, negate=negate, keepdims=keepdims)
    return store(r)


@nki.jit
def k_reduce_3d(a):
    # [P, A, B] reduced over the last axis only (axis=2) and over both free axes (axis=(1, 2)).
    x = load(a)
    P, A, B = a.shape
    r1 = nl.ndarray((P, A), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r1, op=nl.add, data=x, axis=2)
    r2 = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=r2, op=nl.maximum, data=x, axis=(1, 2), keepdims=True)
    return store(r1), store(r2)


@nki.jit
def k_partition_reduce(a, op="add"):
    x = load(a)
    P, F = a.shape
    r = nl.ndarray((1, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_partition_reduce(dst=r, op=getattr(nl, op), data=x)
    return store(r)


@nki.jit
def k_scan(a, b, op0="multiply", op1="add", initial=0.0):
    x, y = load(a), load(b)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor_scan(dst=r, data0=x, data1=y, initial=initial, op0=getattr(nl, op0), op1=getattr(nl, op1))
    return store(r)


@nki.jit
def k_reciprocal(a, out_dtype="float32"):
    x = load(a)
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    nisa.reciprocal(dst=r, data=x)
    return store(r)


@nki.jit
def k_memset(a, value=3.5, out_dtype="float32"):
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    nisa.memset(dst=r, value=value)
    return store(r)


@nki.jit
def k_iota(a, base=0, step=1, channel_multiplier=0):
    P, F = a.shape
    r = nl.ndarray((P, F), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(dst=r, pattern=[[step, F]], offset=base, channel_multiplier=channel_multiplier)
    return store(r)


@nki.jit
def k_affine_select(a, fill=-1.0):
    # keep x[p, f] where f - p <= 0 (lower triangle incl. diagonal), else fill.
    x = load(a)
    P, F = a.shape
    r = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.affine_select(dst=r, pattern=[[-1, F]], channel_multiplier=1, on_true_tile=x, on_false_value=fill,
                       cmp_op=nl.greater_equal, offset=0)
    return store(r)


@nki.jit
def k_bn(a):
    x = load(a)
    P, F = a.shape
    stats = nl.ndarray((P, 6), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_stats(dst=stats, data=x)
    mv = nl.ndarray((P, 2), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_aggr(dst=mv, data=stats)
    return store(mv)


@nki.jit
def k_max8(a):
    x = load(a)
    P, F = a.shape
    m = nl.ndarray((P, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=m, src=x)
    idx = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(dst=idx, data=x, vals=m)
    return store(m), store(idx)


@nki.jit
def k_matmul(a_t, b, in_dtype="bfloat16"):
    # out[M, N] = a_t.T @ b with a_t [K, M], b [K, N], K <= 128, M <= 128, N <= 512.
    st, mv = load(a_t, in_dtype), load(b, in_dtype)
    K, M = a_t.shape
    K2, N = b.shape
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=st, moving=mv)
    r = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=acc)
    return store(r)


@nki.jit
def k_transpose(a, engine="tensor", in_dtype="float32"):
    x = load(a, in_dtype)
    P, F = a.shape
    if engine == "tensor":
        t = nl.ndarray((F, P), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t, data=x, engine=nisa.engine.tensor)
    else:
        t = nl.ndarray((F, P), dtype=x.dtype, buffer=nl.sbuf)
        nisa.nc_transpose(dst=t, data=x, engine=nisa.engine.vector)
    r = nl.ndarray((F, P), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=r, src=t)
    return store(r)


@nki.jit
def k_dma_cast(a, out_dtype="bfloat16"):
    out = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out


@nki.jit
def k_cumulative(a, imm0=1.0, imm1=0.0, op1="add", load_init=False):
    x = load(a)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    cmd = nisa.reduce_cmd.load_reduce if load_init else nisa.reduce_cmd.reset_reduce
    nisa.tensor_scalar_cumulative(dst=r, src=x, op0=nl.add, op1=getattr(nl, op1), imm0=imm0, imm1=imm1,
                                  reduce_cmd=cmd)
    return store(r)


@nki.jit
def k_scalar_reduce(a, imm=2.0, negate=False):
    x = load(a)
    P, F = a.shape
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_reduce(dst=r, data=x, op0=nl.multiply, operand0=imm, reduce_op=nl.add, reduce_res=s,
                              reduce_res_negate=negate)
    return store(r), store(s)


@nki.jit
def k_activation_reduce(a):
    x = load(a)
    P, F = a.shape
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation_reduce(dst=r, op=nl.square, data=x, reduce_op=nl.add, reduce_res=s)
    return store(r), store(s)


@nki.jit
def k_range_select(a, lo, hi, start=0.0):
    x, b0, b1 = load(a), load(lo), load(hi)
    P, F = a.shape
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.range_select(dst=r, on_true_tile=x, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=b0, bound1=b1,
                      reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_res=m, reduce_op=nl.maximum, range_start=start)
    return store(r), store(m)


@nki.jit
def k_select_reduce(pred, a, fill=-5.0):
    p, x = load(pred), load(a)
    P, F = a.shape
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.select_reduce(dst=r, predicate=p, on_true=x, on_false=fill, reduce_res=m,
                       reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_op=nl.maximum)
    return store(r), store(m)


@nki.jit
def k_copy_predicated(pred, a, b, reverse=False):
    p, x, y = load(pred), load(a), load(b)
    nisa.tensor_copy_predicated(dst=y, src=x, predicate=p, reverse_pred=reverse)
    return store(y)


@nki.jit
def k_match_replace8(a, imm=-1.0):
    x = load(a)
    P, F = a.shape
    m = nl.ndarray((P, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=m, src=x)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.nc_match_replace8(dst=r, data=x, vals=m, imm=imm)
    return store(r)


@nki.jit
def k_stream_shuffle(a, rotate=1):
    x = load(a)
    r = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_stream_shuffle(dst=r, src=x, shuffle_mask=[(i + rotate) % 32 for i in range(32)])
    return store(r)


@nki.jit
def k_exponential(a, mx=0.5, out_dtype="float32"):
    x = load(a)
    P, F = a.shape
    r = nl.ndarray(a.shape, dtype=DT[out_dtype], buffer=nl.sbuf)
    s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.exponential(dst=r, src=x, max_value=mx, reduce_res=s, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    return store(r), store(s)


@nki.jit
def k_dropout(a, prob=0.0):
    x = load(a)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.dropout(dst=r, data=x, prob=prob)
    return store(r)
