"""End to end: the nki.language functions that return tiles, one generated kernel per group of functions, in the
legacy (neuronxcc.nki) and current (nki) spellings, run through the CLI and compared with numpy goldens. Each
kernel computes several results and returns them all (one output per check), so the whole table runs in a few
dozen CLI calls."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, to_bf16

d = tmpdir()
rng = np.random.default_rng(7)

LEGACY = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n"
CURRENT = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n"


def kernel_source(imports, params, pre, cases):
    """A kernel computing each case's expression into a tile `r` and returning all of them (dtype = the tile's)."""
    lines = [imports, "", "@nki.jit", f"def k({', '.join(params)}):"]
    lines += ["    " + s for s in pre]
    outs = []
    for i, (_, expr, *_rest) in enumerate(cases):
        lines.append(f"    r{i} = {expr}")
        lines.append(f"    o{i} = nl.ndarray(r{i}.shape, dtype=r{i}.dtype, buffer=nl.shared_hbm)")
        lines.append(f"    nl.store(o{i}, value=r{i})")
        outs.append(f"o{i}")
    lines.append(f"    return {', '.join(outs)},")
    return "\n".join(lines) + "\n"


def run_cases(group, params, inputs, pre, cases, spellings=("legacy", "current"), extra=(), suffixes=None):
    """cases: (name, expression, golden (numpy array), expected dtype or None, tolerance). suffixes: per input,
    e.g. ':bfloat16' (the CLI rounds the .npy data to that dtype)."""
    suffixes = suffixes or [""] * len(inputs)
    paths = [save(d, f"{group}_{p}.npy", x) + sfx for p, x, sfx in zip(params, inputs, suffixes)]
    for spelling in spellings:
        src = kernel_source(LEGACY if spelling == "legacy" else CURRENT, params, pre, cases)
        kpath = os.path.join(d, f"{group}_{spelling}.py")
        with open(kpath, "w") as f:
            f.write(src)
        out = os.path.join(d, f"out_{group}_{spelling}")
        rc, so, se = run(kpath, "--inputs", *paths, "-o", out, "-q", *extra)
        check_equal(rc, 0, f"{group} ({spelling}) exit code (stderr: {se})")
        if rc != 0:
            continue
        for i, (name, _, golden, dtype, tol) in enumerate(cases):
            got = np.load(os.path.join(out, f"output_{i}.npy"))
            if dtype is not None:
                check_equal(str(got.dtype), dtype, f"{group}/{name} ({spelling}) dtype")
            g = np.asarray(golden)
            if got.shape != g.shape:
                check(False, f"{group}/{name} ({spelling}): shape {got.shape}, expected {g.shape}")
                continue
            if tol == 0:
                ok = np.array_equal(got.astype(np.float64), g.astype(np.float64), equal_nan=True)
            else:
                ok = np.allclose(got.astype(np.float64), g.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)
            err = float(np.nanmax(np.abs(got.astype(np.float64) - g.astype(np.float64)))) if got.size else 0.0
            check(ok, f"{group}/{name} ({spelling}): max abs error {err}")


f32 = np.float32
a = rng.standard_normal((128, 64)).astype(f32)
b = rng.standard_normal((128, 64)).astype(f32) + f32(3.0)  # keep away from 0 for divide
col = rng.standard_normal((128, 1)).astype(f32)
pos = (np.abs(a) + f32(0.5)).astype(f32)

# ---- binary ops, scalar and [P,1] broadcasting, operators
pre = ["ta = nl.load(a)", "tb = nl.load(b)", "tc = nl.load(c)"]
run_cases("binary", ["a", "b", "c"], [a, b, col], pre, [
    ("add", "nl.add(ta, tb)", a + b, "float32", 0),
    ("subtract", "nl.subtract(ta, tb)", a - b, "float32", 0),
    ("multiply", "nl.multiply(ta, tb)", a * b, "float32", 0),
    ("divide", "nl.divide(ta, tb)", a / b, "float32", 1e-6),
    ("maximum", "nl.maximum(ta, tb)", np.maximum(a, b), "float32", 0),
    ("minimum", "nl.minimum(ta, tb)", np.minimum(a, b), "float32", 0),
    ("add_scalar", "nl.add(ta, 2.5)", a + f32(2.5), "float32", 0),
    ("scalar_sub", "nl.subtract(1.0, ta)", f32(1.0) - a, "float32", 0),
    ("mul_column", "nl.multiply(ta, tc)", a * col, "float32", 0),
    ("column_sub", "nl.subtract(tc, ta)", col - a, "float32", 0),
    ("op_add", "ta + tb", a + b, "float32", 0),
    ("op_chain", "(ta - tb) * 2.0 / tb", (a - b) * f32(2.0) / b, "float32", 1e-6),
    ("op_rsub", "3.0 - ta", f32(3.0) - a, "float32", 0),
    ("op_neg", "-ta", -a, "float32", 0),
    ("op_pow", "nl.power(ta, 2.0)", a * a, "float32", 1e-6),
    ("dtype_kw", "nl.add(ta, tb, dtype=nl.bfloat16)", to_bf16(a + b), "float32", 0),
])

# ---- comparisons (legacy: bool; current: the input dtype), logical and bitwise ops
cases_cmp = [
    ("greater", "nl.greater(ta, tb)", a > b),
    ("less_equal", "nl.less_equal(ta, 0.0)", a <= 0),
    ("equal", "nl.equal(ta, ta)", np.ones_like(a, dtype=bool)),
    ("op_lt", "ta < tb", a < b),
]
run_cases("compare_legacy", ["a", "b"], [a, b], ["ta = nl.load(a)", "tb = nl.load(b)"],
          [(n, e, g, "bool", 0) for n, e, g in cases_cmp], spellings=("legacy",))
run_cases("compare_current", ["a", "b"], [a, b], ["ta = nl.load(a)", "tb = nl.load(b)"],
          [(n, e, g.astype(f32), "float32", 0) for n, e, g in cases_cmp], spellings=("current",))

ia = rng.integers(0, 1 << 20, (128, 32)).astype(np.int32)
ib = rng.integers(0, 16, (128, 32)).astype(np.int32)
run_cases("bitwise", ["x", "y"], [ia, ib], ["tx = nl.load(x)", "ty = nl.load(y)"], [
    ("bitwise_and", "nl.bitwise_and(tx, ty)", ia & ib, "int32", 0),
    ("bitwise_or", "nl.bitwise_or(tx, ty)", ia | ib, "int32", 0),
    ("bitwise_xor", "nl.bitwise_xor(tx, ty)", ia ^ ib, "int32", 0),
    ("left_shift", "nl.left_shift(tx, ty)", ia << ib, "int32", 0),
    ("right_shift", "nl.right_shift(tx, ty)", ia >> ib, "int32", 0),
    ("invert", "nl.invert(tx)", ~ia, "int32", 0),
    ("op_and", "tx & ty", ia & ib, "int32", 0),
    ("op_or", "tx | ty", ia | ib, "int32", 0),
    ("op_invert", "~tx", ~ia, "int32", 0),
])
la = (rng.random((128, 32)) > 0.5).astype(f32)
lb = (rng.random((128, 32)) > 0.5).astype(f32)
run_cases("logical", ["x", "y"], [la, lb], ["tx = nl.load(x)", "ty = nl.load(y)"], [
    ("logical_and", "nl.logical_and(tx, ty)", np.logical_and(la, lb).astype(f32), "float32", 0),
    ("logical_or", "nl.logical_or(tx, ty)", np.logical_or(la, lb).astype(f32), "float32", 0),
    ("logical_xor", "nl.logical_xor(tx, ty)", np.logical_xor(la, lb).astype(f32), "float32", 0),
    ("logical_not", "nl.logical_not(tx)", np.logical_not(la).astype(f32), "float32", 0),
])

# ---- unary math and activations (fp32 libm in the simulator)
x = rng.uniform(-3, 3, (128, 64)).astype(f32)
erf = np.vectorize(__import__("math").erf)
sig = 1 / (1 + np.exp(-x.astype(np.float64)))
unary = [
    ("abs", "nl.abs(tx)", np.abs(x)),
    ("square", "nl.square(tx)", x * x),
    ("negative", "nl.negative(tx)", -x),
    ("sign", "nl.sign(tx)", np.sign(x)),
    ("exp", "nl.exp(tx)", np.exp(x)),
    ("log", "nl.log(tp)", np.log(pos)),
    ("sqrt", "nl.sqrt(tp)", np.sqrt(pos)),
    ("rsqrt", "nl.rsqrt(tp)", 1 / np.sqrt(pos)),
    ("reciprocal", "nl.reciprocal(tp)", 1 / pos),
    ("sin", "nl.sin(tx)", np.sin(x)),
    ("arctan", "nl.arctan(tx)", np.arctan(x)),
    ("tanh", "nl.tanh(tx)", np.tanh(x)),
    ("sigmoid", "nl.sigmoid(tx)", sig),
    ("relu", "nl.relu(tx)", np.maximum(x, 0)),
    ("gelu", "nl.gelu(tx)", 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    ("gelu_apprx_tanh", "nl.gelu_apprx_tanh(tx)",
     0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("silu", "nl.silu(tx)", x * sig),
    ("softplus", "nl.softplus(tx)", np.log1p(np.exp(x))),
    ("mish", "nl.mish(tx)", x * np.tanh(np.log1p(np.exp(x)))),
    ("erf", "nl.erf(tx)", erf(x)),
    ("gelu_dx", "nl.gelu_dx(tx)", 0.5 * (1 + erf(x / np.sqrt(2))) + x * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)),
    ("gelu_apprx_sigmoid", "nl.gelu_apprx_sigmoid(tx)", x / (1 + np.exp(-1.702 * x.astype(np.float64)))),
    ("gelu_apprx_sigmoid_dx", "nl.gelu_apprx_sigmoid_dx(tx)",
     (lambda s: s + 1.702 * x * s * (1 - s))(1 / (1 + np.exp(-1.702 * x.astype(np.float64))))),
    ("silu_dx", "nl.silu_dx(tx)", sig * (1 + x * (1 - sig))),
    ("erf_dx", "nl.erf_dx(tx)", 2 / np.sqrt(np.pi) * np.exp(-x.astype(np.float64) ** 2)),
    ("copy", "nl.copy(tx)", x),
    ("copy_bf16", "nl.copy(tx, dtype=nl.bfloat16)", to_bf16(x)),
]
run_cases("unary", ["x", "p"], [x, pos], ["tx = nl.load(x)", "tp = nl.load(p)"],
          [(n, e, g, None, 2e-5) for n, e, g in unary])

# ---- promotion (nki-language.md §6.4): result dtypes of mixed operands
i8 = rng.integers(-50, 50, (128, 16)).astype(np.int8)
u8 = rng.integers(0, 100, (128, 16)).astype(np.uint8)
h = rng.standard_normal((128, 16)).astype(np.float16)
bf = to_bf16(rng.standard_normal((128, 16)).astype(f32))
promo_inputs = [i8, u8, h, bf]
promo = [
    ("bf16_plus_fp16", "nl.add(tbf, th)", bf.astype(np.float64) + h.astype(np.float64), "float32", 1e-6),
    ("int8_plus_2", "ti8 + 2", i8.astype(np.int32) + 2, "int32", 0),
    ("int8_plus_uint8", "nl.add(ti8, tu8)", i8.astype(np.int16) + u8.astype(np.int16), "int16", 0),
    ("fp16_plus_float", "th + 1.5", h.astype(f32) + f32(1.5), "float32", 0),
    ("int8_times_fp16", "ti8 * th", (i8.astype(f32) * h.astype(f32)).astype(np.float16), "float16", 0),
    ("bf16_times_int", "tbf * 2", bf * 2, "float32", 0),  # bf16 result, written as float32 by the CLI
]
run_cases("promotion", ["xi8", "xu8", "xh", "xbf"], promo_inputs,
          ["ti8 = nl.load(xi8)", "tu8 = nl.load(xu8)", "th = nl.load(xh)", "tbf = nl.load(xbf)"], promo,
          suffixes=["", "", "", ":bfloat16"])

# ---- rounding and trigonometry composed from instructions
xr = rng.uniform(-4, 4, (128, 32)).astype(f32)
xr[0, :6] = [2.5, -2.5, 3.0, -0.5, 0.0, 1.5]
xt = rng.uniform(-1.2, 1.2, (128, 32)).astype(f32)
run_cases("rounding", ["x", "y"], [xr, xt], ["tx = nl.load(x)", "ty = nl.load(y)"], [
    ("floor", "nl.floor(tx)", np.floor(xr), "float32", 0),
    ("ceil", "nl.ceil(tx)", np.ceil(xr), "float32", 0),
    ("trunc", "nl.trunc(tx)", np.trunc(xr), "float32", 0),
    ("cos", "nl.cos(ty)", np.cos(xt), "float32", 2e-6),
    ("tan", "nl.tan(ty)", np.tan(xt), "float32", 2e-5),
])

# ---- reductions (axis / keepdims), softmax, rms_norm, where, broadcast_to, transpose, matmul
x3 = rng.standard_normal((128, 4, 16)).astype(f32)
w = rng.standard_normal((128, 64)).astype(f32)
row = rng.standard_normal((1, 64)).astype(f32)
sm = np.exp(a - a.max(axis=1, keepdims=True))
sm = sm / sm.sum(axis=1, keepdims=True)
rms = a / np.sqrt((a.astype(np.float64) ** 2).sum(axis=1, keepdims=True) / 64 + 1e-6) * w
run_cases("reduce", ["a", "x3", "w", "row"], [a, x3, w, row],
          ["ta = nl.load(a)", "t3 = nl.load(x3)", "tw = nl.load(w)", "trow = nl.load(row)"], [
    ("sum", "nl.sum(ta, axis=1)", a.sum(axis=1), "float32", 1e-5),
    ("sum_keepdims", "nl.sum(ta, axis=[1], keepdims=True)", a.sum(axis=1, keepdims=True), "float32", 1e-5),
    ("max", "nl.max(ta, axis=1, keepdims=True)", a.max(axis=1, keepdims=True), "float32", 0),
    ("min", "nl.min(ta, axis=-1)", a.min(axis=1), "float32", 0),
    ("prod", "nl.prod(t3, axis=2)", x3.prod(axis=2), "float32", 1e-5),
    ("sum_2axes", "nl.sum(t3, axis=(1, 2))", x3.sum(axis=(1, 2)), "float32", 1e-5),
    ("mean", "nl.mean(ta, axis=1, keepdims=True)", a.mean(axis=1, keepdims=True), "float32", 1e-6),
    ("var", "nl.var(ta, axis=1)", a.var(axis=1, keepdims=True), "float32", 1e-5),
    ("all", "nl.all(nl.greater(ta, -10.0, dtype=nl.float32), axis=1)", np.ones((128,), dtype=np.float32), None, 0),
    ("softmax", "nl.softmax(ta, axis=1)", sm, "float32", 1e-6),
    ("rms_norm", "nl.rms_norm(ta, tw, axis=1, n=64)", rms, "float32", 1e-5),
    ("where", "nl.where(nl.greater(ta, 0.0, dtype=nl.float32), ta, tw)", np.where(a > 0, a, w), "float32", 0),
    ("where_scalar", "nl.where(nl.greater(ta, 0.0, dtype=nl.float32), ta, 0.0)", np.where(a > 0, a, 0), "float32", 0),
    ("broadcast_row", "nl.broadcast_to(trow, shape=(128, 64))", np.broadcast_to(row, (128, 64)), "float32", 0),
    ("broadcast_col", "nl.broadcast_to(nl.max(ta, axis=1, keepdims=True), shape=(128, 64))",
     np.broadcast_to(a.max(axis=1, keepdims=True), (128, 64)), "float32", 0),
    ("transpose", "nl.transpose(ta)", a.T, "float32", 0),
    ("expand_dims", "nl.expand_dims(ta, 1)", a[:, None, :], "float32", 0),
])
ma = rng.standard_normal((128, 96)).astype(f32)
mb = rng.standard_normal((128, 256)).astype(f32)
mc = rng.standard_normal((96, 128)).astype(f32)
run_cases("matmul", ["ma", "mb", "mc"], [ma, mb, mc], ["tma = nl.load(ma)", "tmb = nl.load(mb)", "tmc = nl.load(mc)"], [
    ("matmul_tx", "nl.matmul(tma, tmb, transpose_x=True)", ma.T.astype(np.float64) @ mb, "float32", 1e-4),
    ("matmul", "nl.matmul(tmc, tmb)", mc.astype(np.float64) @ mb, "float32", 1e-4),
    ("nisa_matmul", "nisa.nc_matmul(tma, tmb)", ma.T.astype(np.float64) @ mb, "float32", 1e-4),
    ("nisa_tensor_tensor", "nisa.tensor_tensor(tma, tma, op=nl.multiply)", ma * ma, "float32", 0),
    ("nisa_activation", "nisa.activation(op=nl.exp, data=tma, scale=0.5)", np.exp(ma * f32(0.5)), "float32", 2e-6),
    ("nisa_tensor_scalar", "nisa.tensor_scalar(tma, nl.multiply, 2.0, op1=nl.add, operand1=1.0)",
     ma * f32(2) + f32(1), "float32", 0),
    ("nisa_reduce", "nisa.tensor_reduce(nl.add, tma, axis=(1,), keepdims=True)", ma.sum(axis=1, keepdims=True),
     "float32", 1e-5),
    ("nisa_copy", "nisa.tensor_copy(tma, dtype=nl.bfloat16)", to_bf16(ma), "float32", 0),
    ("nisa_memset", "nisa.memset((128, 8), 3.0, nl.float32)", np.full((128, 8), 3.0, f32), "float32", 0),
], spellings=("legacy",))

# ---- mask= on reductions, softmax, where, dropout, rounding and legacy tensor_reduce: only the selected box is
# computed (each result is sliced to the box before it is stored; rows outside it are not defined)
M = "mask=((i_p >= 32) & (i_p < 100) & (i_f >= 8) & (i_f < 40))"
ab = a[32:100, 8:40]
wb = w[32:100, 8:40]
smb = np.exp(ab - ab.max(axis=1, keepdims=True))
smb = smb / smb.sum(axis=1, keepdims=True)
mask_pre = ["ta = nl.load(a)", "tw = nl.load(w)", "i_p = nl.arange(128)[:, None]", "i_f = nl.arange(64)[None, :]"]
run_cases("masked", ["a", "w"], [a, w], mask_pre, [
    ("sum_keepdims", f"nl.sum(ta, axis=1, keepdims=True, {M})[32:100]", ab.sum(axis=1, keepdims=True), "float32",
     1e-5),
    ("sum", f"nl.sum(ta, axis=1, {M})[32:100]", ab.sum(axis=1), "float32", 1e-5),
    ("max", f"nl.max(ta, axis=1, keepdims=True, {M})[32:100]", ab.max(axis=1, keepdims=True), "float32", 0),
    ("min", f"nl.min(ta, axis=1, {M})[32:100]", ab.min(axis=1), "float32", 0),
    ("mean", f"nl.mean(ta, axis=1, keepdims=True, {M})[32:100]", ab.mean(axis=1, keepdims=True), "float32", 1e-6),
    ("var", f"nl.var(ta, axis=1, {M})[32:100]", ab.var(axis=1, keepdims=True), "float32", 1e-5),
    ("softmax", f"nl.softmax(ta, axis=1, {M})[32:100, 8:40]", smb, "float32", 1e-6),
    ("where", f"nl.where(nl.greater(ta, 0.0, dtype=nl.float32), ta, tw, {M})[32:100, 8:40]",
     np.where(ab > 0, ab, wb), "float32", 0),
    ("where_scalar", f"nl.where(nl.greater(ta, 0.0, dtype=nl.float32), ta, -1.0, {M})[32:100, 8:40]",
     np.where(ab > 0, ab, -1), "float32", 0),
    ("floor", f"nl.floor(nl.multiply(ta, 3.0), {M})[32:100, 8:40]", np.floor(ab * f32(3)), "float32", 0),
    ("trunc", f"nl.trunc(nl.multiply(ta, 3.0), {M})[32:100, 8:40]", np.trunc(ab * f32(3)), "float32", 0),
])
run_cases("masked_legacy_isa", ["a"], [a], mask_pre[:1] + mask_pre[2:], [
    ("tensor_reduce_keepdims", f"nisa.tensor_reduce(nl.add, ta, axis=(1,), keepdims=True, {M})[32:100]",
     ab.sum(axis=1, keepdims=True), "float32", 1e-5),
    ("tensor_reduce", f"nisa.tensor_reduce(nl.maximum, ta, axis=(1,), {M})[32:100]", ab.max(axis=1), "float32", 0),
], spellings=("legacy",))

# ---- gather_flattened: out[p, j] = data[p].flatten()[indices[p, j]] (GpSimd nc_n_gather)
gd = rng.standard_normal((128, 4, 16)).astype(f32)
gi = rng.integers(0, 64, size=(128, 48)).astype(np.int32)
gu = gi.astype(np.uint32)
run_cases("gather", ["gd", "gi", "gu"], [gd, gi, gu], ["td = nl.load(gd)", "ti = nl.load(gi)", "tu = nl.load(gu)"], [
    ("int32_indices", "nl.gather_flattened(td, ti)", np.take_along_axis(gd.reshape(128, 64), gi, axis=1), "float32", 0),
    ("uint32_indices", "nl.gather_flattened(td, tu, axis=0)", np.take_along_axis(gd.reshape(128, 64), gi, axis=1),
     "float32", 0),
    ("dtype", "nl.gather_flattened(td, ti, dtype=nl.bfloat16)",
     to_bf16(np.take_along_axis(gd.reshape(128, 64), gi, axis=1)), "float32", 0),
])

# ---- fmod / mod (x - trunc(x / y) * y, x - floor(x / y) * y); quotients kept away from integers by a margin
fx = (rng.standard_normal((128, 64)) * 20).astype(f32)
fy = (rng.uniform(0.5, 3.0, (128, 64)) * rng.choice([-1.0, 1.0], (128, 64))).astype(f32)
qq = fx.astype(np.float64) / fy
fy = np.where(np.abs(qq - np.round(qq)) < 1e-3, fy * f32(1.01), fy).astype(f32)
run_cases("fmod", ["fx", "fy"], [fx, fy], ["tx = nl.load(fx)", "ty = nl.load(fy)"], [
    ("fmod", "nl.fmod(tx, ty)", np.fmod(fx, fy), "float32", 2e-5),
    ("mod", "nl.mod(tx, ty)", np.mod(fx, fy), "float32", 2e-5),
    ("fmod_scalar", "nl.fmod(tx, 3.0)", np.fmod(fx, f32(3)), "float32", 2e-5),
    ("mod_scalar", "nl.mod(tx, -2.5)", np.mod(fx, f32(-2.5)), "float32", 2e-5),
])

# ---- device_print: printed by the simulator when the instruction executes (stderr), in simulated-time order,
# with the kernel location; round-trips through the binary program format
dp_src = CURRENT + """

@nki.jit
def k(x):
    t = nl.load(x[0:2, 0:3])
    nl.device_print("t", t)
    u = nl.multiply(t, 2.0)
    nl.device_print("twice", u)
    i = nl.ndarray((2, 2), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(i, [[1, 2]], offset=-1, channel_multiplier=2)
    nl.device_print("iota", i)
    nl.device_print("hbm", x[1:2, 0:2])
    o = nl.ndarray((2, 3), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(o, value=u)
    return o
"""
dp_path = os.path.join(d, "dp.py")
with open(dp_path, "w") as f:
    f.write(dp_src)
dpx = save(d, "dpx.npy", np.array([[1, 2.5, -3], [1e-5, 0.1, 100]], f32))
expected = ("dp.py:9: t: [[1.0, 2.5, -3.0], [1e-05, 0.1, 100.0]]\n"
            "dp.py:11: twice: [[2.0, 5.0, -6.0], [2e-05, 0.2, 200.0]]\n"
            "dp.py:14: iota: [[-1, 0], [1, 2]]\n"
            "dp.py:15: hbm: [[1e-05, 0.1]]\n")
binp = os.path.join(d, "dp.bin")
asmp = os.path.join(d, "dp.asm")
rc, so, se = run("dp.py", "--inputs", dpx, "-o", os.path.join(d, "dp_out"), "-q", "--emit", "bin", binp, cwd=d)
check(rc == 0 and se == expected, f"device_print output: {se!r}")
rc, so, se = run("dp.py", "--inputs", dpx, "-o", os.path.join(d, "dp_out_f"), "-q", "--functional", cwd=d)
check(rc == 0 and se == expected, f"device_print output (functional): {se!r}")
rc, so, se = run("--program", binp, "--inputs", dpx, "-o", os.path.join(d, "dp_out2"), "-q", cwd=d)
check(rc == 0 and se == expected, f"device_print from the binary program: {se!r}")
rc, so, se = run("dp.py", "--inputs", dpx, "-q", "--emit", "asm", asmp, cwd=d)
asm = open(asmp).read() if rc == 0 else ""
check('.str S0 "t"' in asm and '.str S3 "hbm"' in asm and "device_print" in asm and "text=3" in asm,
      f"device_print in the assembly: {asm[:2000]!r}")

finish()
