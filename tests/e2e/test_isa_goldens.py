"""numpy goldens per nki.isa instruction through the CLI (issue #5): one small kernel per instruction from
tests/e2e/kernels/isa_goldens.py, run with the dtypes/ops/options of each case, compared with numpy doing
the documented math: inputs up-cast to fp32, math in fp32, one rounding to the destination dtype (round to
nearest even; fp32 -> int rounds to nearest even and saturates)."""
import os

import numpy as np

from common import SRC, check, finish, rne_float, run, save, scratch_dir, to_bf16, to_fp8_e4m3

KERNELS = os.path.join(SRC, "tests", "e2e", "kernels", "isa_goldens.py")
rng = np.random.default_rng(11)
D = scratch_dir("nkisim-goldens-")
_n = 0


def sim(kernel, inputs, target="trn2", **args):
    """Runs one kernel; inputs are arrays or (array, ':dtype'); returns the list of outputs."""
    global _n
    _n += 1
    files = []
    for i, x in enumerate(inputs):
        arr, sfx = x if isinstance(x, tuple) else (x, "")
        files.append(save(D, f"c{_n}_{i}.npy", arr) + sfx)
    argv = [KERNELS, "-k", kernel, "--target", target, "--inputs", *files, "-o", os.path.join(D, f"o{_n}"), "-q"]
    for k, v in args.items():
        argv += ["--arg", f"{k}={v!r}"]
    rc, _, se = run(*argv)
    if rc != 0:
        check(False, f"{kernel} {args}: exit {rc}: {se.strip()}")
        return None
    outs = []
    i = 0
    while os.path.exists(os.path.join(D, f"o{_n}", f"output_{i}.npy")):
        outs.append(np.load(os.path.join(D, f"o{_n}", f"output_{i}.npy")))
        i += 1
    return outs


def same(actual, expected, what):
    """Bit-for-bit equality of values (NaN == NaN, +0 != -0 for floats)."""
    if actual is None:
        return
    a, e = np.asarray(actual), np.asarray(expected)
    ok = a.shape == e.shape
    if ok and a.dtype.kind == "f":
        ok = np.array_equal(a.astype(np.float32).view(np.uint32), e.astype(np.float32).view(np.uint32)) or (
            np.array_equal(np.isnan(a), np.isnan(e)) and np.array_equal(a[~np.isnan(a)].astype(np.float32).view(np.uint32),
                                                                       e[~np.isnan(e)].astype(np.float32).view(np.uint32)))
    elif ok:
        ok = np.array_equal(a, e)
    if not ok:
        bad = np.argwhere(~((a == e) | (np.isnan(a) & np.isnan(e)))) if a.shape == e.shape and a.dtype.kind == "f" else []
        where = f" first mismatch at {tuple(bad[0])}: {a[tuple(bad[0])]!r} vs {e[tuple(bad[0])]!r}" if len(bad) else \
            f" shapes {a.shape} vs {e.shape}"
        check(False, f"{what}:{where}")
    else:
        check(True, what)


def close_ulp(actual, expected, ulps, what):
    if actual is None:
        return
    a = np.asarray(actual, dtype=np.float32)
    e = np.asarray(expected, dtype=np.float64).astype(np.float32)
    spacing = np.abs(np.spacing(e)).astype(np.float64)
    err = np.abs(a.astype(np.float64) - e.astype(np.float64))
    ok = (err <= ulps * spacing) | (a == e) | (np.isnan(a) & np.isnan(e))
    if not ok.all():
        i = tuple(np.argwhere(~ok)[0])
        check(False, f"{what}: {a[i]!r} vs {e[i]!r} at {i} (> {ulps} ulp)")
    else:
        check(True, what)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def rne_int(x, dtype):
    info = np.iinfo(dtype)
    r = np.rint(np.asarray(x, dtype=np.float64))
    r = np.where(np.isnan(r), 0, r)
    return np.clip(r, info.min, info.max).astype(dtype)


# ---- tensor_tensor: arithmetic in fp32 over dtypes, bitvec ops on integers, comparisons -> 1.0/0.0 ------------
a, b = f32(128, 64), f32(128, 64)
b_nz = np.where(np.abs(b) < 0.1, np.float32(0.5), b)
for op, fn in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("maximum", np.maximum),
               ("minimum", np.minimum), ("divide", np.divide)]:
    y = b_nz if op == "divide" else b
    o = sim("k_tensor_tensor", [a, y], op=op)
    same(o and o[0], fn(a, y), f"tensor_tensor {op} fp32")
    o = sim("k_tensor_tensor", [(a, ":bfloat16"), (y, ":bfloat16")], op=op, in_dtype="bfloat16", out_dtype="bfloat16")
    same(o and o[0], to_bf16(fn(to_bf16(a), to_bf16(y))), f"tensor_tensor {op} bf16 in, bf16 out")
o = sim("k_tensor_tensor", [a, b], op="add", engine="gpsimd")
same(o and o[0], a + b, "tensor_tensor add on GpSimd")
b2 = np.where(rng.random(a.shape) < 0.2, a, b)  # some equal pairs
for op, fn in [("greater", np.greater), ("less_equal", np.less_equal), ("equal", np.equal)]:
    o = sim("k_tensor_tensor", [a, b2], op=op)
    same(o and o[0], fn(a, b2).astype(np.float32), f"tensor_tensor {op} gives 1.0 / 0.0")
ia = rng.integers(-2**31, 2**31 - 1, (128, 32), dtype=np.int64).astype(np.int32)
ib = rng.integers(-2**31, 2**31 - 1, (128, 32), dtype=np.int64).astype(np.int32)
for op, fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]:
    o = sim("k_tensor_tensor", [ia, ib], op=op, in_dtype="int32", out_dtype="int32")
    same(o and o[0], fn(ia, ib), f"tensor_tensor {op} int32 raw bits")
# integer add through fp32: exact for small values, rounded + saturated when the fp32 sum is inexact
sa = rng.integers(-1000, 1000, (128, 32)).astype(np.int32)
sb = rng.integers(-1000, 1000, (128, 32)).astype(np.int32)
o = sim("k_tensor_tensor", [sa, sb], op="add", in_dtype="int32", out_dtype="int32")
same(o and o[0], sa + sb, "tensor_tensor add int32 small values")
# special values
sp = np.array([[np.nan, np.inf, -np.inf, 0.0, -0.0, 1e38, -1e38, 3.0]], dtype=np.float32).repeat(2, 0)
sq = np.array([[1.0, -np.inf, -np.inf, -0.0, -0.0, 1e38, -1e38, np.nan]], dtype=np.float32).repeat(2, 0)
with np.errstate(all="ignore"):
    o = sim("k_tensor_tensor", [sp, sq], op="add")
    same(o and o[0], sp + sq, "tensor_tensor add NaN/inf/-0/overflow")
    o = sim("k_tensor_tensor", [sp, sq], op="multiply", out_dtype="bfloat16")
    same(o and o[0], to_bf16(sp * sq), "tensor_tensor multiply special values -> bf16")

# ---- tensor_scalar: immediates and [P,1] operands, reverse, two ops ----------------------------------------
s = f32(128, 1)
o = sim("k_tensor_scalar", [a, s], op0="multiply", imm0=2.5, op1="add", imm1=-1.25)
same(o and o[0], (a * np.float32(2.5)) + np.float32(-1.25), "tensor_scalar multiply/add immediates")
o = sim("k_tensor_scalar", [a, s], op0="subtract", tile_operand=True)
same(o and o[0], a - s, "tensor_scalar subtract [P,1] tile")
o = sim("k_tensor_scalar", [a, s], op0="subtract", imm0=1.0, reverse0=True)
same(o and o[0], np.float32(1.0) - a, "tensor_scalar reverse0: imm - data")
o = sim("k_tensor_scalar", [(a, ":bfloat16"), s], op0="multiply", imm0=3.0, in_dtype="bfloat16", out_dtype="bfloat16")
same(o and o[0], to_bf16(to_bf16(a) * np.float32(3.0)), "tensor_scalar bf16 -> bf16")
o = sim("k_tensor_scalar", [a * 1000, s], op0="multiply", imm0=1.5, out_dtype="int32")
same(o and o[0], rne_int((a * 1000) * np.float32(1.5), np.int32), "tensor_scalar fp32 -> int32 rounds to nearest even")

# ---- activation: func(data * scale + bias) in fp32 ----------------------------------------------------------
x = f32(128, 96)
bias = f32(128, 1, scale=0.1)
for func, fn, ulps in [("exp", np.exp, 2), ("tanh", np.tanh, 2), ("relu", lambda v: np.maximum(v, 0), 0),
                       ("sigmoid", lambda v: 1 / (1 + np.exp(-v)), 3), ("square", np.square, 0),
                       ("copy", lambda v: v, 0), ("abs", np.abs, 0)]:
    o = sim("k_activation", [x, bias], func=func, scale=0.5)
    arg = (x * np.float32(0.5) + bias).astype(np.float32)
    close_ulp(o and o[0], fn(arg.astype(np.float64)), ulps, f"activation {func}")
o = sim("k_activation", [x, bias], func="exp", scale=1.0, out_dtype="bfloat16")
if o:
    ref = np.exp((x + bias).astype(np.float64)).astype(np.float32)
    # one bf16 rounding of the fp32 result: equal to the bf16 of a value within 2 fp32 ulp of the exact result
    lo, hi = to_bf16(ref - 2 * np.spacing(ref)), to_bf16(ref + 2 * np.spacing(ref))
    check(bool(((o[0] == lo) | (o[0] == hi)).all()), "activation exp -> bf16 rounds the fp32 result once")

# ---- tensor_copy: casts -------------------------------------------------------------------------------------
c = np.concatenate([f32(4, 64, scale=300), np.array([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e10, -1e10] * 8],
                                                    dtype=np.float32)], 0)
for eng in ("vector", "scalar", "gpsimd"):
    o = sim("k_tensor_copy", [c], out_dtype="bfloat16", engine=eng)
    same(o and o[0], to_bf16(c), f"tensor_copy fp32 -> bf16 ({eng})")
o = sim("k_tensor_copy", [c], out_dtype="int32")
same(o and o[0], rne_int(c, np.int32), "tensor_copy fp32 -> int32: ties to even, saturation")
o = sim("k_tensor_copy", [c], out_dtype="int8")
same(o and o[0], rne_int(c, np.int8), "tensor_copy fp32 -> int8 saturates")
o = sim("k_tensor_copy", [c], out_dtype="uint8")
same(o and o[0], rne_int(c, np.uint8), "tensor_copy fp32 -> uint8 saturates at 0 and 255")
o = sim("k_tensor_copy", [c], out_dtype="float16")
with np.errstate(over="ignore"):
    same(o and o[0], c.astype(np.float16).astype(np.float32), "tensor_copy fp32 -> fp16 (numpy RNE, overflow to inf)")
o = sim("k_tensor_copy", [c / 300], out_dtype="float8_e5m2")
same(o and o[0], rne_float(c / 300, 2, -14, 57344.0), "tensor_copy fp32 -> float8_e5m2 RNE")
# float8_e4m3 (IEEE-like, largest 240): c / 2 spans normals, ties and values rounding to inf (c holds +-1e10 and
# values up to 300); c / 2**12 the subnormals. to_fp8_e4m3 is also what the corpus harness rounds fp8 inputs with.
for scale in (2.0, 2.0**12):
    o = sim("k_tensor_copy", [c / scale], out_dtype="float8_e4m3")
    same(o and o[0], to_fp8_e4m3(c / scale), f"tensor_copy fp32 -> float8_e4m3 RNE (c / {scale:g})")
big = np.array([[2**24 + 1, -(2**31), 2**31 - 1, 7]], dtype=np.int32).repeat(2, 0)
o = sim("k_tensor_copy", [big], in_dtype="int32", out_dtype="int32")
same(o and o[0], big, "tensor_copy int32 -> int32 is bit-exact on Vector")

# ---- tensor_reduce ------------------------------------------------------------------------------------------
r = f32(128, 200)
o = sim("k_tensor_reduce", [r], op="add")
if o:
    ref = np.zeros((128, 1), np.float32)
    for j in range(200):  # fp32 sum left to right
        ref[:, 0] = (ref[:, 0] + r[:, j]).astype(np.float32)
    same(o[0], ref, "tensor_reduce add fp32 left to right")
o = sim("k_tensor_reduce", [r], op="maximum", negate=True)
same(o and o[0], -r.max(axis=1, keepdims=True), "tensor_reduce maximum negate")
o = sim("k_tensor_reduce", [r], op="minimum", keepdims=False)
same(o and o[0], r.min(axis=1), "tensor_reduce minimum keepdims=False")
o = sim("k_tensor_reduce", [(r, ":bfloat16")], op="maximum", in_dtype="bfloat16", out_dtype="bfloat16")
same(o and o[0], to_bf16(r).max(axis=1, keepdims=True), "tensor_reduce maximum bf16")
r3 = f32(64, 6, 10)
o = sim("k_reduce_3d", [r3])
if o:
    ref = np.zeros((64, 6), np.float32)
    for j in range(10):
        ref = (ref + r3[:, :, j]).astype(np.float32)
    same(o[0], ref, "tensor_reduce axis=2 of [P, 6, 10]")
    same(o[1], r3.reshape(64, -1).max(axis=1, keepdims=True), "tensor_reduce maximum axis=(1, 2)")
o = sim("k_tensor_reduce", [f32(1, 1)], op="add")
check(o is not None and o[0].shape == (1, 1), "tensor_reduce of one element on one partition")

# ---- tensor_partition_reduce ---------------------------------------------------------------------------------
pr = f32(128, 40)
o = sim("k_partition_reduce", [pr], op="maximum")
same(o and o[0], pr.max(axis=0, keepdims=True), "tensor_partition_reduce maximum over 128 partitions")

# ---- tensor_tensor_scan: r[j] = (data0[j] op0 r[j-1]) op1 data1[j] -----------------------------------------
d0, d1 = f32(32, 50), f32(32, 50)
o = sim("k_scan", [d0, d1], initial=0.5)
if o:
    ref = np.zeros_like(d0)
    prev = np.full(32, 0.5, np.float32)
    for j in range(50):
        prev = ((d0[:, j] * prev).astype(np.float32) + d1[:, j]).astype(np.float32)
        ref[:, j] = prev
    same(o[0], ref, "tensor_tensor_scan multiply/add with an initial value")

# ---- reciprocal, memset, iota, affine_select ---------------------------------------------------------------
rc_in = np.concatenate([f32(2, 16), np.array([[0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, 1e-40, 7.0] * 2],
                                              dtype=np.float32)], 0)
with np.errstate(all="ignore"):
    o = sim("k_reciprocal", [rc_in])
    same(o and o[0], (np.float32(1) / rc_in).astype(np.float32), "reciprocal fp32 with special values")
o = sim("k_memset", [f32(128, 33)], value=-2.75, out_dtype="bfloat16")
same(o and o[0], np.full((128, 33), -2.75, np.float32), "memset bf16")
o = sim("k_memset", [f32(3, 5)], value=-7, out_dtype="int32")
same(o and o[0], np.full((3, 5), -7, np.int32), "memset int32")
rc, _, se = run(KERNELS, "-k", "k_memset", "--inputs", save(D, "ms.npy", f32(3, 5)), "--arg", "value=7.6",
                "--arg", "out_dtype='int32'", "-o", os.path.join(D, "ms"), "-q")
check(rc == 1 and ":113:5: error: memset: value 7.6 is not an integer but dst has dtype int32" in se,
      f"memset of a float value into int32 is a located error: {se.strip()}")
o = sim("k_iota", [f32(128, 20)], base=5, step=3, channel_multiplier=100)
same(o and o[0], (5 + 3 * np.arange(20)[None, :] + 100 * np.arange(128)[:, None]).astype(np.int32),
     "iota base + step*f + channel_multiplier*p")
am = f32(64, 64)
o = sim("k_affine_select", [am], fill=-9.0)
same(o and o[0], np.where(np.arange(64)[:, None] - np.arange(64)[None, :] >= 0, am, np.float32(-9.0)),
     "affine_select lower triangle")

# ---- bn_stats + bn_aggr: mean and population variance ---------------------------------------------------------
bn = f32(128, 256, scale=3) + 1
o = sim("k_bn", [bn])
if o:
    m = bn.astype(np.float64).mean(axis=1)
    v = bn.astype(np.float64).var(axis=1)
    check(bool(np.allclose(o[0][:, 0], m, rtol=1e-5, atol=1e-5)), "bn_stats/bn_aggr mean")
    check(bool(np.allclose(o[0][:, 1], v, rtol=1e-4, atol=1e-4)), "bn_stats/bn_aggr variance")

# ---- max8 / nc_find_index8 -----------------------------------------------------------------------------------
mx = np.stack([rng.permutation(64).astype(np.float32) for _ in range(16)])
o = sim("k_max8", [mx])
if o:
    same(o[0], -np.sort(-mx, axis=1)[:, :8], "max8: the 8 largest, descending")
    same(o[1], np.argsort(-mx, axis=1)[:, :8].astype(np.uint32), "nc_find_index8: their indices")

# ---- nc_matmul: stationary.T @ moving, fp32 accumulate -------------------------------------------------------
at, bm = f32(128, 96), f32(128, 256)
o = sim("k_matmul", [(at, ":bfloat16"), (bm, ":bfloat16")])
if o:
    ref = to_bf16(at).astype(np.float64).T @ to_bf16(bm).astype(np.float64)
    check(bool(np.allclose(o[0], ref, rtol=2e-6, atol=2e-5)), "nc_matmul bf16 x bf16 -> fp32 PSUM")
o = sim("k_matmul", [at[:64], bm[:64]], in_dtype="float32")
if o:
    ref = at[:64].astype(np.float64).T @ bm[:64].astype(np.float64)
    check(bool(np.allclose(o[0], ref, rtol=1e-5, atol=1e-5)), "nc_matmul fp32, K=64")

# ---- nc_transpose: bit-exact on both engines -------------------------------------------------------------------
tp = f32(96, 128)
tp[0, :4] = [np.nan, np.inf, -0.0, -np.inf]
o = sim("k_transpose", [tp], engine="tensor", target="trn2")
same(o and o[0], tp.T, "nc_transpose on the Tensor Engine (trn2: bit-exact incl. NaN/inf)")
tv = f32(32, 32)
o = sim("k_transpose", [tv], engine="vector")
same(o and o[0], tv.T, "nc_transpose on the Vector Engine (32x32)")

# ---- dma_copy casts via fp32 -----------------------------------------------------------------------------------
o = sim("k_dma_cast", [c], out_dtype="bfloat16")
same(o and o[0], to_bf16(c), "dma_copy fp32 -> bf16 HBM to HBM")
o = sim("k_dma_cast", [c], out_dtype="int32")
same(o and o[0], rne_int(c, np.int32), "dma_copy fp32 -> int32")

# ---- accumulator instructions -----------------------------------------------------------------------------------
cu = f32(16, 40)


def running(x, f, init):
    out, reg = np.empty_like(x), np.full(x.shape[0], init, np.float32)
    for j in range(x.shape[1]):
        reg = f(x[:, j], reg).astype(np.float32)
        out[:, j] = reg
    return out


o = sim("k_cumulative", [cu], imm0=0.25)
same(o and o[0], running((cu + np.float32(0.25)).astype(np.float32), np.add, 0), "tensor_scalar_cumulative add")
o = sim("k_cumulative", [cu], imm0=0.0, imm1=3.0, load_init=True)
same(o and o[0], running(cu, np.add, 3.0), "tensor_scalar_cumulative load_reduce starts from imm1")
o = sim("k_cumulative", [cu], imm0=0.0, op1="maximum")
same(o and o[0], np.maximum.accumulate(cu, axis=1), "tensor_scalar_cumulative maximum")
o = sim("k_scalar_reduce", [cu], imm=2.0, negate=True)
if o:
    prod = (cu * np.float32(2)).astype(np.float32)
    same(o[0], prod, "tensor_scalar_reduce dst = data * imm")
    same(o[1], -running(prod, np.add, 0)[:, -1:], "tensor_scalar_reduce add into the accumulator, negated on write")
o = sim("k_activation_reduce", [cu])
if o:
    sq = (cu * cu).astype(np.float32)
    same(o[0], sq, "activation_reduce square")
    same(o[1], running(sq, np.add, 0)[:, -1:], "activation_reduce sums the outputs per partition")

# ---- range_select / select_reduce / tensor_copy_predicated ---------------------------------------------------------
rs = f32(8, 30)
lo = rng.integers(0, 15, (8, 1)).astype(np.float32)
hi = (lo + rng.integers(1, 15, (8, 1))).astype(np.float32)
o = sim("k_range_select", [rs, lo, hi], start=2.0)
if o:
    idx = 2.0 + np.arange(30)[None, :]
    keep = (idx >= lo) & (idx < hi)
    ref = np.where(keep, rs, np.float32(-3.4028235e38))
    same(o[0], ref, "range_select keeps bound0 <= start + f < bound1, fills FP32_MIN")
    same(o[1], ref.max(axis=1, keepdims=True), "range_select max into the accumulator")
pred = (rng.random((16, 24)) < 0.5).astype(np.uint8)
sv = f32(16, 24)
o = sim("k_select_reduce", [pred, sv], fill=-5.0)
if o:
    ref = np.where(pred != 0, sv, np.float32(-5.0))
    same(o[0], ref, "select_reduce where(pred, on_true, on_false)")
    same(o[1], ref.max(axis=1, keepdims=True), "select_reduce max into the accumulator")
ya = f32(16, 24)
for rev in (False, True):
    o = sim("k_copy_predicated", [pred, sv, ya], reverse=rev)
    same(o and o[0], np.where((pred != 0) != rev, sv, ya), f"tensor_copy_predicated reverse_pred={rev}")

# ---- nc_match_replace8, nc_stream_shuffle ------------------------------------------------------------------------------
mr = np.stack([rng.permutation(40).astype(np.float32) for _ in range(4)])
o = sim("k_match_replace8", [mr], imm=-1.0)
same(o and o[0], np.where(mr >= 32, np.float32(-1.0), mr), "nc_match_replace8 replaces the 8 largest")
ss = f32(64, 10)
o = sim("k_stream_shuffle", [ss], rotate=1)
if o:
    src_rows = np.array([(q * 32) + ((i + 1) % 32) for q in range(2) for i in range(32)])
    same(o[0], ss[src_rows], "nc_stream_shuffle rotates partitions within each 32-partition quadrant")

# ---- exponential (trn3), dropout edge probabilities ---------------------------------------------------------------------
ex = f32(32, 48)
o = sim("k_exponential", [ex], target="trn3", mx=0.5)
if o:
    ref = np.exp((ex - np.float32(0.5)).astype(np.float64))
    close_ulp(o[0], ref, 2, "exponential exp(src - max_value)")
    close_ulp(o[1], running(o[0], np.add, 0)[:, -1:], 0, "exponential sums its outputs into the accumulator")
rc, _, se = run(KERNELS, "-k", "k_exponential", "--target", "trn2", "--inputs", save(D, "ex.npy", ex), "-q",
                "-o", os.path.join(D, "ex"))
check(rc == 1 and ":278:5: error: exponential: not available on trn2 (trn3 only)" in se,
      f"exponential is trn3-only, a located error on trn2: {se.strip()}")
o = sim("k_dropout", [ex], prob=0.0)
same(o and o[0], ex, "dropout prob=0 keeps everything (no rescaling)")
o = sim("k_dropout", [ex], prob=1.0)
same(o and o[0], np.zeros_like(ex), "dropout prob=1 zeroes everything")

finish()
