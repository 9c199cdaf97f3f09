"""SDK examples (aws-neuron-sdk nki/examples/**) and nki-samples tutorials (src/nki_samples/tutorials/**), at the
shapes their torch/jax drivers use, against numpy references of ours."""
import numpy as np

from harness import Case, Expr, T

SDK = "nki/examples"
TUT = "src/nki_samples/tutorials"
BF16 = "bfloat16"


def sdk(name, file, kernel, args, reference, **kw):
    return Case("sdk", "examples/" + name, f"{SDK}/{file}", kernel, args, reference, **kw)


def tut(name, file, kernel, args, reference, **kw):
    return Case("samples", "tutorials/" + name, f"{TUT}/{file}", kernel, args, reference, **kw)


def uniform(rng, *shape, dtype="float32", lo=0.0, hi=1.0):
    return T(rng.uniform(lo, hi, shape).astype(np.float32), dtype)


def _add(rng, shape, dtype="float32"):
    return {"a": uniform(rng, *shape, dtype=dtype), "b": uniform(rng, *shape, dtype=dtype)}


def _add_named(n1, n2, shape, dtype="float32"):
    return lambda r: {n1: uniform(r, *shape, dtype=dtype), n2: uniform(r, *shape, dtype=dtype)}


def _add_ref(i):
    a, b = list(i.values())[:2]
    return a + b


# ---------------------------------------------------------------- references

def avgpool_ref(i):
    x, p = i["in_tensor"].astype(np.float32), i["pool_size"]
    c, h, w = x.shape
    return x.reshape(c, h // p, p, w // p, p).mean((2, 4))


def transpose2d_ref(i):
    x, (r, c) = i["in_tensor"], i["shape2D"]
    return x.reshape(x.shape[0], r, c).transpose(0, 2, 1).reshape(x.shape[0], r * c)


def matmul_ref(i):
    return i["lhsT"].astype(np.float32).T @ i["rhs"].astype(np.float32)


def mamba_ref(i):
    delta, u, a, b, c = (i[k].astype(np.float64) for k in ("delta", "u", "A", "B", "C"))
    d_a = np.exp(delta[:, :, None, :] * a[None, :, :, None])  # [batch, channels, state, seq]
    d_bu = delta[:, :, None, :] * b[:, None, :, :] * u[:, :, None, :]
    state = np.zeros(d_a.shape[:3])
    out = np.empty(d_a.shape)
    for t in range(d_a.shape[-1]):
        state = d_a[..., t] * state + d_bu[..., t]
        out[..., t] = state
    return (c[:, None, :, :] * out).sum(2)


def mamba_args(batch=1, channels=256, state=16, seq=2048):
    def args(r):
        return {"delta": uniform(r, batch, channels, seq, lo=0.01, hi=0.1),
                "u": T(r.standard_normal((batch, channels, seq)).astype(np.float32)),
                "A": uniform(r, channels, state, lo=-1.0, hi=-0.5),
                "B": T(r.standard_normal((batch, state, seq)).astype(np.float32)),
                "C": T(r.standard_normal((batch, state, seq)).astype(np.float32))}
    return args


def attention_ref(i):
    q, k, v = (i[n].astype(np.float64) for n in "qkv")
    qk = q.T @ k
    e = np.exp(qk - qk.max(1, keepdims=True))
    return (e / e.sum(1, keepdims=True)) @ v.T


def attention_args(seq, d=128):
    return lambda r: {n: uniform(r, d, seq, lo=-1.0, hi=1.0) for n in "qkv"}


def maxpool_ref(i):
    x, p = i["in_tensor"], i["sz_pool"]
    c, h, w = x.shape
    return x.reshape(c, h // p, p, w // p, p).max((2, 4))


def split_ref(i):
    x = i["in_tensor"]
    return x[:, 0::2], x[:, 1::2]


def _matmuls(maker, file):
    small = lambda r: {"lhsT": uniform(r, 128, 64, dtype=BF16), "rhs": uniform(r, 128, 512, dtype=BF16)}
    big = lambda r: {"lhsT": uniform(r, 1024, 4096, dtype=BF16), "rhs": uniform(r, 1024, 2048, dtype=BF16)}
    tol = dict(atol=1e-2, rtol=2e-2)
    return [maker("matmul/basic_64x128x512", file, "nki_matmul_basic_", small, matmul_ref, **tol)] + [
        maker(f"matmul/{k}_4096x1024x2048", file, f"nki_matmul_{k}_", big, matmul_ref, **tol)
        for k in ("tiled", "hoist_load", "block_free_dimension", "fully_optimized")]


def _mambas(maker, file):
    return [maker(f"fused_mamba/{v}_b1_c256_s16_l2048", file, f"mamba_{v}", mamba_args(), mamba_ref,
                  atol=1e-3, rtol=1e-3) for v in ("v1", "v2", "v3")]


def mx_exact(rng, *shape):
    """bf16 data that MX-fp8 (e5m2) quantization keeps exactly: +-(1 + m/4) * 2^e, e in [-3, 0]."""
    m, e = rng.integers(0, 4, shape), rng.integers(-3, 1, shape)
    sign = rng.choice([-1.0, 1.0], shape)
    return T((sign * (1 + m / 4) * 2.0 ** e).astype(np.float32), BF16)


def _mx_copy_strided(use_tensor_copy):
    return tut(f"mxfp_matmul/copy_strided_{'tensor_copy' if use_tensor_copy else 'dma'}_fp8e5m2_512x128x512",
               "mxfp-matmul/mx_kernels.py", "kernel_copy_strided_quantize_matmul_mx",
               lambda r: {"stationary_hbm": mx_exact(r, 512, 128), "moving_hbm": mx_exact(r, 512, 512),
                          "mx_dtype": Expr("nl.float8_e5m2_x4", ("import nki.language as nl",)),
                          "use_tensor_copy": use_tensor_copy},
               lambda i: i["stationary_hbm"].T @ i["moving_hbm"], atol=5e-2, rtol=5e-2, target="trn3")


INVALID = "deliberately invalid documentation example: expect a located error"


def cases():
    ex = [
        sdk("layout_pass/exp", "layout-pass.py", "tensor_exp_kernel_",
            lambda r: {"in_tensor": uniform(r, 128, 512)}, lambda i: np.exp(i["in_tensor"]), atol=1e-5, rtol=1e-5),
        sdk("layout_loop/exp", "layout-loop.py", "tensor_exp_kernel_",
            lambda r: {"in_tensor": uniform(r, 256, 512)}, None, expect_error=INVALID),
        sdk("layout_dynamic_loop/exp", "layout-dynamic-loop.py", "tensor_exp_kernel_",
            lambda r: {"in_tensor": uniform(r, 300, 512)}, None, expect_error=INVALID),
        sdk("layout_violation/exp", "layout-violation.py", "tensor_exp_kernel_",
            lambda r: {"in_tensor": uniform(r, 256, 512)}, None, expect_error=INVALID),
        sdk("index_case_1/split", "index-case-1.py", "tensor_split_kernel_",
            lambda r: {"in_tensor": T(np.arange(20, dtype=np.float32).reshape(4, 5), BF16)}, split_ref,
            atol=0, rtol=0),
        sdk("index_case_3/maxpool", "index-case-3.py", "tensor_maxpool_kernel_",
            lambda r: {"in_tensor": uniform(r, 8, 12, 12), "sz_pool": 2}, maxpool_ref, atol=0, rtol=0),
        sdk("getting_started/add", "getting_started_baremetal.py", "nki_tensor_add_kernel",
            _add_named("a_input", "b_input", (128, 512)), _add_ref, atol=1e-6, rtol=1e-6),
        sdk("simulate/add", "simulate/nki_simulate_example.py", "add_kernel",
            _add_named("a_ptr", "b_ptr", (128, 512)), _add_ref, atol=1e-6, rtol=1e-6),
        sdk("average_pool2d/2x6x6_p2", "average_pool2d/average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
            lambda r: {"in_tensor": T(np.arange(72, dtype=np.float32).reshape(2, 6, 6), BF16), "pool_size": 2},
            avgpool_ref, atol=1e-2, rtol=1e-2),
        sdk("transpose2d/5x3x4", "transpose2d/transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
            lambda r: {"in_tensor": T(np.arange(60, dtype=np.int8).reshape(5, 12)), "shape2D": (3, 4)},
            transpose2d_ref, atol=0, rtol=0),
        sdk("tensor_addition/256x1024", "tensor_addition/tensor_addition_nki_kernels.py", "nki_tensor_add",
            _add_named("a_input", "b_input", (256, 1024), BF16), _add_ref, atol=1e-2, rtol=1e-2),
    ] + _matmuls(sdk, "matrix_multiplication/matrix_multiplication_nki_kernels.py") + _mambas(
        sdk, "fused_mamba/mamba_nki_kernels.py")
    tu = [
        tut("average_pool2d/2x6x6_p2", "average_pool2d/average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
            lambda r: {"in_tensor": T(np.arange(72, dtype=np.float32).reshape(2, 6, 6), BF16), "pool_size": 2},
            avgpool_ref, atol=1e-2, rtol=1e-2),
        tut("transpose2d/5x3x4", "transpose2d/transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
            lambda r: {"in_tensor": T(np.arange(60, dtype=np.int8).reshape(5, 12)), "shape2D": (3, 4)},
            transpose2d_ref, atol=0, rtol=0),
        tut("tensor_addition/256x1024_grid2x2", "tensor_addition/tensor_addition_nki_kernels.py",
            "nki_tensor_add_kernel_", _add_named("a_input", "b_input", (256, 1024), BF16), _add_ref,
            atol=1e-2, rtol=1e-2, grid=(2, 2)),
        tut("spmd_tensor_addition/256x1024_grid2x2", "tensor_addition/spmd_tensor_addition_nki_kernels.py",
            "nki_tensor_add_kernel_", _add_named("a_input", "b_input", (256, 1024), BF16), _add_ref,
            atol=1e-2, rtol=1e-2, grid=(2, 2)),
        # nki_tensor_add_nc2 launches the same kernel on spmd_dim(2, nc(2)) x 4: 4 x 4 programs over two cores.
        tut("spmd_multiple_nc_tensor_addition/512x2048_grid4x4_lnc2",
            "tensor_addition/spmd_multiple_nc_tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
            _add_named("a_input", "b_input", (512, 2048), BF16), _add_ref, atol=1e-2, rtol=1e-2, grid=(4, 4),
            lnc=2),
    ] + _matmuls(tut, "matrix_multiplication/matrix_multiplication_nki_kernels.py") + _mambas(
        tut, "fused_mamba/mamba_nki_kernels.py") + [
        tut(f"attention_fwd/v{v}_d128_s{128 if v in ('1', '2') else 4096}",
            "attention_fwd_performance/attention_kernels.py", f"attn_fwd_v{v}",
            attention_args(128 if v in ("1", "2") else 4096), attention_ref, atol=1e-2, rtol=0)
        for v in ("1", "2", "3", "4", "5", "6", "7", "8", "8a", "9", "10", "11")] + [
        _mx_copy_strided(True), _mx_copy_strided(False)]
    return ex + tu
