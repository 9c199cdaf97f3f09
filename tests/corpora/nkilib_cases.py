"""nki-library core kernels (src/nkilib_src/nkilib/core/**) at configurations taken from their tests
(test/integration/nkilib/core/**), against numpy references of ours written from what the torch references compute.
Tolerances follow the tests."""
import numpy as np

from harness import Case, Expr, T, to_bf16

LIB = "src/nkilib_src"
BF16 = "bfloat16"


def lib(name, module, kernel, args, reference, atol=1e-5, rtol=1e-5, lnc=None, **kw):
    return Case("nki-library", name, file=f"{LIB}/{module.replace('.', '/')}.py", kernel=kernel, args=args,
                reference=reference, atol=atol, rtol=rtol, lnc=lnc, module=module, include=LIB, **kw)


def randn(rng, *shape, dtype="float32", scale=1.0):
    return T((rng.standard_normal(shape) * scale).astype(np.float32), dtype)


def f32(x):
    return np.asarray(x, np.float32)


# ---------------------------------------------------------------- cumsum, cascaded_max

def _cumsum(batch, hidden, seq, dtype):
    shape = (batch, seq, hidden) if seq else (batch, hidden)
    bf = dtype == BF16
    return lib(f"cumsum/{'x'.join(map(str, shape))}_{dtype}", "nkilib.core.cumsum.cumsum", "cumsum",
               lambda r: {"x": randn(r, *shape, dtype=dtype)},
               lambda i: np.cumsum(i["x"].astype(np.float64), axis=-1),
               atol=1e-2 if hidden > 5000 else 1e-3, rtol=1e-2 if bf else 1e-3)


def _cascaded_max(lnc, b, s, v):
    def ref(i):
        x = i["input_tensor"]
        return x.max(-1, keepdims=True), x.argmax(-1)[..., None].astype(np.int32)
    return lib(f"cascaded_max/lnc{lnc}_{b}x{s}x{v}", "nkilib.core.max.cascaded_max", "cascaded_max",
               lambda r: {"input_tensor": randn(r, b, s, v)}, ref, lnc=lnc)


# ---------------------------------------------------------------- embeddings

def _rope_ref(i):
    x, cos, sin = i["x_in"], i["cos"], i["sin"]  # [d, B, H, S], [d/2, B, S]
    d = x.shape[0]
    if i["contiguous_layout"]:
        re, im = x[: d // 2], x[d // 2:]
    else:
        re, im = x[0::2], x[1::2]
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    b = to_bf16  # the test's torch reference computes in bf16: every product and sum rounds
    o_re, o_im = b(b(re * c) - b(im * s)), b(b(re * s) + b(im * c))
    out = np.empty_like(x)
    if i["contiguous_layout"]:
        out[: d // 2], out[d // 2:] = o_re, o_im
    else:
        out[0::2], out[1::2] = o_re, o_im
    return out


def _rope(d, b, h, s, contiguous, relayout):
    return lib(f"rope/d{d}_b{b}_h{h}_s{s}_{'contig' if contiguous else 'inter'}{'_relayout' if relayout else ''}",
               "nkilib.core.embeddings.rope", "RoPE",
               lambda r: {"x_in": randn(r, d, b, h, s, dtype=BF16), "cos": randn(r, d // 2, b, s, dtype=BF16),
                          "sin": randn(r, d // 2, b, s, dtype=BF16), "lnc_shard": True,
                          "contiguous_layout": contiguous, "relayout_in_sbuf": relayout},
               _rope_ref, atol=1e-3, rtol=2 ** -7 * 2, lnc=2)


def _rope_hf_ref(i):
    def rot(x):
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], -1)

    def rot_bwd(x):
        h = x.shape[-1] // 2
        return np.concatenate([x[..., h:], -x[..., :h]], -1)
    c, s = i["cos"][:, None], i["sin"][:, None]
    if i["backward"]:
        return [x * c + rot_bwd(x * s) for x in (i["q"], i["k"])]
    return [x * c + rot(x) * s for x in (i["q"], i["k"])]


def _rope_hf(lnc, b, qh, kvh, s, d, dtype, backward=False):
    bf = dtype == BF16

    def args(r):
        q, k = randn(r, b, qh, s, d, dtype=dtype), randn(r, b, kvh, s, d, dtype=dtype)
        return {"q": q, "k": k, "q_out": T(np.zeros_like(q.data), dtype), "k_out": T(np.zeros_like(k.data), dtype),
                "cos": randn(r, b, s, d, dtype=dtype), "sin": randn(r, b, s, d, dtype=dtype), "backward": backward}
    return lib(f"rope_hf/lnc{lnc}_b{b}_qh{qh}_kvh{kvh}_s{s}_d{d}_{dtype}{'_bwd' if backward else ''}",
               "nkilib.core.embeddings.rope_hf", "rope_hf", args, _rope_hf_ref,
               atol=2e-2 if bf else 1e-5, rtol=2e-2 if bf else 1e-5, lnc=lnc)


# ---------------------------------------------------------------- rmsnorm_tkg, layernorm_tkg

def _tile_layout(y, lnc2, hidden_dim_tp=False):
    """[B, S, H] -> the kernels' [128, B*S, H/128] output layout (LNC2: the two halves of H side by side)."""
    bxs, h = y.shape[0] * y.shape[1], y.shape[2]
    y = y.reshape(bxs, h)
    if hidden_dim_tp:
        return y.reshape(bxs, h // 128, 128).transpose(2, 0, 1)
    if not lnc2:
        return y.reshape(bxs, 128, h // 128).transpose(1, 0, 2)
    halves = [t.reshape(bxs, 128, h // 256).transpose(1, 0, 2) for t in (y[:, : h // 2], y[:, h // 2:])]
    return np.concatenate(halves, 2)


def _rmsnorm_tkg(lnc, b, s, h, h_actual=None, tp=False, shard_on_h=False, dtype="float16"):
    def ref(i):
        x = i["input"].astype(np.float32)
        ss = np.square(x).sum(-1, keepdims=True)
        rms = np.sqrt(ss / (h_actual or h) + 1e-6)
        y = x / rms * i["gamma"].astype(np.float32)
        return _tile_layout(y, lnc == 2 and not tp, tp)
    return lib(f"rmsnorm_tkg/lnc{lnc}_b{b}_s{s}_h{h}{f'_ha{h_actual}' if h_actual else ''}{'_tp' if tp else ''}"
               f"{'_shardH' if shard_on_h else ''}", "nkilib.core.subkernels.rmsnorm_tkg", "rmsnorm_tkg",
               lambda r: {"input": randn(r, b, s, h, dtype=dtype), "gamma": randn(r, 1, h, dtype=dtype),
                          "output": T(np.zeros((128, b * s, h // 128), np.float32), dtype),
                          "hidden_actual": h_actual, "hidden_dim_tp": tp, "shard_on_h": shard_on_h},
               ref, atol=1e-5, rtol=2e-2, lnc=lnc)


def _layernorm_tkg(lnc, b, s, h, shard_on_h=False, dtype="float16"):
    def ref(i):
        x = i["input"].astype(np.float32)
        mean = x.mean(-1, keepdims=True)
        var = np.square(x - mean).mean(-1, keepdims=True)
        y = (x - mean) / np.sqrt(var + 1e-6) * i["gamma"].astype(np.float32) + i["beta"].astype(np.float32)
        return _tile_layout(y, lnc == 2 or shard_on_h)
    return lib(f"layernorm_tkg/lnc{lnc}_b{b}_s{s}_h{h}{'_shardH' if shard_on_h else ''}",
               "nkilib.core.subkernels.layernorm_tkg", "layernorm_tkg",
               lambda r: {"input": randn(r, b, s, h, dtype=dtype), "gamma": randn(r, 1, h, dtype=dtype),
                          "output": T(np.zeros((128, b * s, h // 128), np.float32), dtype),
                          "beta": randn(r, 1, h, dtype=dtype), "shard_on_h": shard_on_h},
               ref, atol=1e-5, rtol=2e-2, lnc=lnc)


def cases():
    return [
        _cumsum(1, 256, 0, "float32"), _cumsum(64, 1024, 4, BF16), _cumsum(128, 2048, 0, "float32"),
        _cascaded_max(1, 8, 5, 4058), _cascaded_max(2, 8, 5, 8192), _cascaded_max(2, 1, 1, 3168),
        _cascaded_max(2, 65, 1, 3168),
        _rope(128, 8, 8, 128, True, False), _rope(64, 1, 1, 16, False, True), _rope(128, 64, 1, 16, False, False),
        _rope_hf(2, 1, 32, 8, 256, 128, BF16), _rope_hf(1, 1, 32, 8, 512, 64, "float32"),
        _rope_hf(2, 1, 32, 8, 256, 128, "float32", backward=True), _rope_hf(2, 4, 1, 1, 512, 128, BF16),
        _rmsnorm_tkg(1, 1, 8, 8192), _rmsnorm_tkg(1, 1, 4, 2048, 1920), _rmsnorm_tkg(2, 2, 8, 8192),
        _rmsnorm_tkg(2, 128, 1, 8192, tp=True), _rmsnorm_tkg(2, 2, 8, 8192, shard_on_h=True),
        _layernorm_tkg(1, 1, 8, 8192), _layernorm_tkg(2, 4, 8, 8192), _layernorm_tkg(2, 128, 1, 8192, True),
    ]
