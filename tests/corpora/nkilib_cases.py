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


def _rope_hf_ref(i, bf):
    def rot(x):
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], -1)

    def rot_bwd(x):
        h = x.shape[-1] // 2
        return np.concatenate([x[..., h:], -x[..., :h]], -1)
    # The kernel writes each product and each sum to a tile of the input's dtype: in bf16 all five round
    # (x * cos, the two half products with sin, the two half sums/differences).
    b = to_bf16 if bf else (lambda v: v)
    c, s = i["cos"][:, None], i["sin"][:, None]
    if i["backward"]:
        return [b(b(x * c) + rot_bwd(b(x * s))) for x in (i["q"], i["k"])]
    return [b(b(x * c) + b(rot(x) * s)) for x in (i["q"], i["k"])]


def _rope_hf(lnc, b, qh, kvh, s, d, dtype, backward=False):
    bf = dtype == BF16

    def args(r):
        q, k = randn(r, b, qh, s, d, dtype=dtype), randn(r, b, kvh, s, d, dtype=dtype)
        return {"q": q, "k": k, "q_out": T(np.zeros_like(q.data), dtype), "k_out": T(np.zeros_like(k.data), dtype),
                "cos": randn(r, b, s, d, dtype=dtype), "sin": randn(r, b, s, d, dtype=dtype), "backward": backward}
    return lib(f"rope_hf/lnc{lnc}_b{b}_qh{qh}_kvh{kvh}_s{s}_d{d}_{dtype}{'_bwd' if backward else ''}",
               "nkilib.core.embeddings.rope_hf", "rope_hf", args, lambda i: _rope_hf_ref(i, bf),
               atol=1e-6, rtol=1e-6, lnc=lnc)  # the test's tolerances: the reference rounds as the kernel does


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
        # What the kernel computes: mean and E[x^2] - mean^2 in fp32, then four elementwise steps each written to
        # an output tile of the input's dtype, (((x - mean) * gamma) * rsqrt(var + eps)) + beta, each rounding.
        # (The test's torch reference is all fp32 and passes by its max-relative tolerance, rtol * max|ref|; an
        # fp32 reference is ~1 fp16 ulp of |gamma * norm| off where beta cancels it, beyond an element's rtol.)
        rnd = (lambda v: np.asarray(v, np.float32).astype(np.float16).astype(np.float32)) if dtype == "float16" \
            else (lambda v: np.asarray(v, np.float32))
        x = i["input"].astype(np.float32)
        mean = x.mean(-1, keepdims=True, dtype=np.float64)
        var = np.square(x.astype(np.float64)).mean(-1, keepdims=True) - np.square(mean)
        rstd = (1.0 / np.sqrt(var + 1e-6)).astype(np.float32)
        y = rnd(x - mean.astype(np.float32))
        y = rnd(y * i["gamma"].astype(np.float32))
        y = rnd(y * rstd)
        y = rnd(y + i["beta"].astype(np.float32))
        return _tile_layout(y, lnc == 2 or shard_on_h)
    return lib(f"layernorm_tkg/lnc{lnc}_b{b}_s{s}_h{h}{'_shardH' if shard_on_h else ''}",
               "nkilib.core.subkernels.layernorm_tkg", "layernorm_tkg",
               lambda r: {"input": randn(r, b, s, h, dtype=dtype), "gamma": randn(r, 1, h, dtype=dtype),
                          "output": T(np.zeros((128, b * s, h // 128), np.float32), dtype),
                          "beta": randn(r, 1, h, dtype=dtype), "shard_on_h": shard_on_h},
               ref, atol=1e-5, rtol=2e-2, lnc=lnc)


# ---------------------------------------------------------------- find_nonzero_indices, indexed_flatten

def _find_nonzero(t, e, top_k, chunk, dtype, e_offset=None, e_local=None):
    def args(r):
        k = t * top_k // e
        flat = r.permutation(np.concatenate([np.ones(k * e), np.zeros((t - k) * e)]))
        x = flat.reshape(e, t).T.astype(np.float32) * (0.1 if dtype == "float32" else 1)
        a = {"input_tensor": T(x, dtype)}
        if e_offset is not None:
            a["col_start_id"] = T(np.array([e_offset], np.int32))
            a["n_cols"] = e_local
        a["chunk_size"] = chunk
        return a

    def ref(i):
        x = i["input_tensor"]
        cols = range(e_offset or 0, (e_offset or 0) + (e_local or e))
        idx = np.full((len(cols), t), -1, np.int32)
        counts = np.zeros(len(cols), np.int32)
        for j, c in enumerate(cols):
            nz = np.nonzero(x[:, c])[0]
            counts[j] = len(nz)
            idx[j, : len(nz)] = nz
        return idx, counts
    sub = f"_off{e_offset}_n{e_local}" if e_offset is not None else ""
    return lib(f"find_nonzero_indices/t{t}_e{e}_k{top_k}_c{chunk}{sub}_{dtype}",
               "nkilib.core.subkernels.find_nonzero_indices", "find_nonzero_indices", args, ref,
               atol=0, rtol=0, lnc=2)


def _indexed_flatten(t, e, f_len, n=None, start=None):
    ppr = t // f_len

    def args(r):
        rows = n or e
        offsets = np.array([ppr * j for j in range(rows)], np.int32)
        out_len = ((rows * t + 1024 + 127) // 128) * 128
        a = {"input_tensor": T(np.arange(e * t, dtype=np.int32).reshape(e, t)), "f_len": f_len,
             "output_len": out_len, "row_offsets": T(offsets)}
        if start is not None:
            a["row_offsets_start"] = T(np.array([start], np.int32))
        a["padding_val"] = -1
        return a

    def ref(i):
        x, out_len, offs = i["input_tensor"], i["output_len"], i["row_offsets"]
        blocks = np.full((out_len // f_len, f_len), -1, np.int32)
        for row in range(e):
            for p in range(ppr):
                b = offs[(start or 0) + row] + p
                if 0 <= b < len(blocks):
                    blocks[b] = x[row, p * f_len:(p + 1) * f_len]
        return blocks.reshape(-1)
    return lib(f"indexed_flatten/t{t}_e{e}_f{f_len}{f'_n{n}_start{start}' if n else ''}",
               "nkilib.core.subkernels.indexed_flatten", "indexed_flatten", args, ref, atol=0, rtol=0, lnc=2)


# ---------------------------------------------------------------- rotational top-k

def _rotational_topk(lnc, b, s, v, k):
    mod = "nkilib.core.topk.rotational_topk"
    cfg = (f"prepare_rotational_constants(create_rotational_topk_config(inp_shape=({b * s}, {v}), "
           f"topk_config=create_topk_config(inp_shape=({b}, {s}, {v}), inp_dtype=np.float32, k={k}, sorted=True, "
           f"num_programs={lnc})))")
    imports = ("import numpy as np", f"from {mod} import prepare_rotational_constants, create_rotational_topk_config, "
               "create_topk_config")

    def post(outs, i):  # ties may pick other indices: compare sorted values, and the values the indices select
        x = i["inp"]
        vals = np.sort(np.asarray(outs[0]).reshape(b * s, k), -1)
        picked = np.sort(np.take_along_axis(x, np.asarray(outs[1]).reshape(b * s, k).astype(np.int64), -1), -1)
        return [vals, picked]

    def ref(i):
        top = np.sort(np.sort(i["inp"], -1)[:, -k:], -1)
        return [top, top]
    return lib(f"rotational_topk/lnc{lnc}_b{b}_s{s}_v{v}_k{k}", mod, "rotational_topk",
               lambda r: {"inp": randn(r, b * s, v), "config": Expr(cfg, imports)}, ref, lnc=lnc, post=post)


# ---------------------------------------------------------------- output projection

QT = ("from nkilib.core.utils.common_types import QuantizationType",)


def _out_proj_tkg(lnc, b, n, s, d, h, bias, transpose):
    def args(r):
        return {"attention": randn(r, d, b, n, s, dtype=BF16), "weight": randn(r, n * d, h, dtype=BF16),
                "bias": randn(r, 1, h, dtype=BF16, scale=100.0) if bias else None,
                "quantization_type": Expr("QuantizationType.NONE", QT), "TRANSPOSE_OUT": transpose, "OUT_IN_SB": False}

    def ref(i):
        attn = i["attention"].transpose(1, 3, 2, 0).reshape(b * s, n * d)
        out = attn @ i["weight"]
        if bias:
            out = out + i["bias"]
        if transpose:
            out = out.reshape(b * s, lnc, 128, h // (lnc * 128)).transpose(2, 1, 3, 0)
        return out
    return lib(f"output_projection_tkg/lnc{lnc}_b{b}_n{n}_s{s}_d{d}_h{h}{'_bias' if bias else ''}"
               f"{'_T' if transpose else ''}",
               "nkilib.core.output_projection.output_projection_tkg", "output_projection_tkg", args, ref,
               atol=1e-3, rtol=2e-2, lnc=lnc)


# ---------------------------------------------------------------- rmsnorm_quant

def _rmsnorm_quant(s, quant_only, quant, lower_bound=0.0, lnc=2, b=1, h=16384):
    def args(r):
        a = {"hidden": randn(r, b, s, h, dtype=BF16),
             "ln_w": randn(r, *((1, h) if lnc > 1 else (h,)), dtype=BF16),
             "kargs": Expr(f"RmsNormQuantKernelArgs(quantization_type=QuantizationType.{quant}, "
                           f"lower_bound={lower_bound}, norm_type=NormType.{'NO_NORM' if quant_only else 'RMS_NORM'}, "
                           "eps=1e-6)", ("from nkilib.core.rmsnorm.rmsnorm_quant import RmsNormQuantKernelArgs",
                                         "from nkilib.core.utils.common_types import NormType, QuantizationType"))}
        if quant == "STATIC":
            a["input_dequant_scale"] = T(np.full((128, 1), r.normal(0.5, 0.1), np.float32))
        return a

    def ref(i):
        x = i["hidden"].astype(np.float32)
        if not quant_only:
            rms = np.sqrt(np.mean(np.square(x), -1, keepdims=True))
            x = x / (rms + 1e-6) * i["ln_w"].reshape(1, 1, h)
        if quant == "ROW":
            amax = np.abs(x).max(-1, keepdims=True)
            if lower_bound > 0:
                amax, x = np.minimum(amax, lower_bound), np.clip(x, -lower_bound, lower_bound)
            return x * (240.0 / amax)
        return np.clip(x / i["input_dequant_scale"][0, 0], -240.0, 240.0)

    def post(outs, i):  # ROW: [B, S, H + 4] fp8, the last 4 bytes hold the fp32 dequantization scale (not compared)
        return [np.asarray(outs[0])[..., :h]]
    return lib(f"rmsnorm_quant/lnc{lnc}_b{b}_s{s}_h{h}_{quant.lower()}{'_quant_only' if quant_only else ''}"
               f"{f'_lb{lower_bound}' if lower_bound else ''}", "nkilib.core.rmsnorm.rmsnorm_quant",
               "rmsnorm_quant_kernel", args, ref, atol=2 ** -9, rtol=0.072, lnc=lnc, post=post)


# ---------------------------------------------------------------- qkv (dispatcher: TKG for short sequences, else CTE)

QKV_IMPORTS = ("from nkilib.core.utils.common_types import NormType, QuantizationType, QKVOutputLayout, "
               "QKVWeightLayout",)


def _qkv(lnc, b, s, h, i_dim, norm, layout="BSD", fused_add=False, dtype=BF16, nq=None, nkv=None, d=128,
         eps=1e-6, h_actual=None):
    def args(r):
        a = {"input": randn(r, b, s, h, dtype=dtype), "fused_qkv_weights": randn(r, h, i_dim, dtype=dtype),
             "output_layout": Expr(f"QKVOutputLayout.{layout}", QKV_IMPORTS), "bias": None,
             "quantization_type": Expr("QuantizationType.NONE", QKV_IMPORTS), "fused_residual_add": fused_add}
        if fused_add:
            a["mlp_prev"], a["attention_prev"] = randn(r, b, s, h, dtype=dtype), randn(r, b, s, h, dtype=dtype)
        a["fused_norm_type"] = Expr(f"NormType.{norm}", QKV_IMPORTS)
        if norm != "NO_NORM":
            a["gamma_norm_weights"] = randn(r, 1, h, dtype=dtype)
        a.update(norm_eps=eps, hidden_actual=h_actual, d_head=d, num_q_heads=nq, num_kv_heads=nkv,
                 weight_layout=Expr("QKVWeightLayout.CONTIGUOUS", QKV_IMPORTS))
        return a

    def ref(i):
        x = i["input"].astype(np.float32)
        if fused_add:
            x = x + i["mlp_prev"] + i["attention_prev"]
        if norm == "RMS_NORM":
            ms = np.square(x).sum(-1, keepdims=True) / (h_actual or h)
            x = x / np.sqrt(ms + eps) * i["gamma_norm_weights"]
        elif norm == "LAYER_NORM":
            x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * i["gamma_norm_weights"]
        out = x @ i["fused_qkv_weights"]
        if layout == "NBSd":
            out = out.reshape(b, s, i_dim // d, d).transpose(2, 0, 1, 3)
        elif layout == "NBdS":
            out = out.reshape(b, s, i_dim // d, d).transpose(2, 0, 3, 1)
        return out
    return lib(f"qkv/lnc{lnc}_b{b}_s{s}_h{h}_i{i_dim}_{norm.lower()}_{layout}"
               f"{'_fused_add' if fused_add else ''}_{dtype}",
               "nkilib.core.qkv.qkv", "qkv", args, ref, atol=1e-5, rtol=2e-2, atol_scale=1e-2, lnc=lnc)


# ---------------------------------------------------------------- mlp_cte / mlp_tkg (through a wrapper of ours)
# nki-library's `mlp` dispatcher (core/mlp/mlp.py) does not parse, so the cases call mlp_cte / mlp_tkg the way it
# does: MLPParameters, outputs in shared HBM, and for mlp_tkg an SBUF manager of 200 KiB (its own fallback names an
# allocator it does not import). B x S <= 96 is the dispatcher's TKG range.

MLP_BIASES = (("gate_b", "gate_proj_bias_tensor"), ("up_b", "up_proj_bias_tensor"),
              ("down_b", "down_proj_bias_tensor"), ("norm_b", "normalization_bias_tensor"))


def _mlp_wrapper(tkg, names, norm, act, flags):
    store = "store" in flags
    params = [f"{n}={n}" for n in names] + [
        f"activation_fn=ActFnType.{act}", f"normalization_type=NormType.{norm}",
        "quantization_type=QuantizationType.NONE", "output_dtype=nl.bfloat16", "eps=1e-6",
        f"store_fused_add_result={store}", f"skip_gate_proj={'skip_gate' in flags}"]
    if tkg:
        params += [f"use_tkg_gate_up_proj_column_tiling={'gate_col' in flags}",
                   f"use_tkg_down_proj_column_tiling={'down_col' in flags}"]
    lines = ["import nki", "import nki.language as nl",
             "from nkilib.core.mlp.mlp_parameters import MLPParameters, validate_mlp_arguments",
             "from nkilib.core.mlp.mlp_tkg.mlp_tkg import mlp_tkg" if tkg else
             "from nkilib.core.mlp.mlp_cte.mlp_cte import mlp_cte",
             "from nkilib.core.utils.allocator import SbufManager",
             "from nkilib.core.utils.common_types import ActFnType, NormType, QuantizationType",
             "from nkilib.core.utils.logging import Logger", "", "",
             "@nki.jit", f"def corpus_case({', '.join(names)}):",
             "    params = MLPParameters(" + ", ".join(params) + ")",
             "    validate_mlp_arguments(params)",
             "    out = nl.ndarray(hidden_tensor.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)",
             "    add_out = nl.ndarray(hidden_tensor.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)" if store else
             "    add_out = None"]
    if tkg:
        lines += ['    sbm = SbufManager(0, 200 * 1024, Logger("mlp"))', '    sbm.set_name_prefix("mlp_")',
                  "    return mlp_tkg(params, out, add_out, sbm=sbm)"]
    else:
        lines += ["    mlp_cte(params, out, add_out)", "    return (out, add_out)" if store else "    return out"]
    return "\n".join(lines) + "\n"


def _norm(x, norm, gamma, bias=None, eps=1e-6):
    if norm == "RMS_NORM":
        return x / np.sqrt(np.mean(np.square(x), -1, keepdims=True) + eps) * gamma
    if norm == "LAYER_NORM":
        y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * gamma
        return y if bias is None else y + bias
    return x


def _silu(x):
    return x / (1 + np.exp(-x))


def _act(x, act):
    if act == "SiLU":
        return _silu(x)
    if act == "GELU":
        from scipy.special import erf
        return 0.5 * x * (1 + erf(x / np.sqrt(2)))
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))  # GELU_Tanh_Approx


def _mlp(lnc, b, s, h, i_dim, norm, act="SiLU", flags=""):
    """flags (space-separated): add (a fused_add_tensor), store (its sum is a second output), skip_gate, gate_b,
    up_b, down_b, norm_b, and for TKG (B x S <= 96) gate_col / down_col (column tiling)."""
    f = flags.split()
    tkg = b * s <= 96

    def args(r):
        a = {"hidden_tensor": randn(r, b, s, h, dtype=BF16), "gate_proj_weights_tensor": randn(r, h, i_dim, dtype=BF16),
             "up_proj_weights_tensor": randn(r, h, i_dim, dtype=BF16),
             "down_proj_weights_tensor": randn(r, i_dim, h, dtype=BF16)}
        if norm in ("RMS_NORM", "LAYER_NORM"):
            a["normalization_weights_tensor"] = T(r.uniform(-0.1, 0.1, (1, h)).astype(np.float32), BF16)
        for flag, name in MLP_BIASES:
            if flag in f and (flag != "norm_b" or norm == "LAYER_NORM"):
                a[name] = randn(r, 1, h if flag in ("down_b", "norm_b") else i_dim, dtype=BF16)
        if "add" in f:
            a["fused_add_tensor"] = randn(r, b, s, h, dtype=BF16)
        return a

    def ref(i):
        g = lambda name: i.get(name, 0.0)  # an absent bias adds nothing
        x = i["hidden_tensor"].astype(np.float64) + g("fused_add_tensor")
        added = x
        x = _norm(x, norm, i.get("normalization_weights_tensor"), i.get("normalization_bias_tensor"))
        up = x @ i["up_proj_weights_tensor"] + g("up_proj_bias_tensor")
        if "skip_gate" in f:
            mid = _act(up, act)
        else:
            mid = _act(x @ i["gate_proj_weights_tensor"] + g("gate_proj_bias_tensor"), act) * up
        out = mid @ i["down_proj_weights_tensor"] + g("down_proj_bias_tensor")
        return [out, added] if "add" in f and "store" in f else out

    names = list(args(np.random.default_rng(0)))  # the wrapper's parameters: the tensors the case gives
    name = (f"mlp_{'tkg' if tkg else 'cte'}/lnc{lnc}_b{b}_s{s}_h{h}_i{i_dim}_{norm.lower()}"
            f"{'' if act == 'SiLU' else '_' + act.lower()}{''.join('_' + x for x in f)}")
    return lib(name, "nkilib.core.mlp.mlp_parameters", "corpus_case", args, ref, atol=1e-5, rtol=2e-2,
               atol_scale=1e-2, lnc=lnc, wrapper=_mlp_wrapper(tkg, names, norm, act, f))


# ---------------------------------------------------------------- attention_tkg (through a wrapper of ours)
# test_attention_tkg.py's configurations without RoPE, position ids, a block KV cache or a sink: its test kernel
# builds an SBUF manager, loads q and k_active into SBUF (qk_in_sb), calls attention_tkg and stores an SBUF output;
# the wrapper does the same. The mask is an input in its flat-cache layout [s_prior, b, n, s_active]: each batch
# attends to a prefix of its cache and, causally, to the s_active new tokens at the end (attention_tkg_torch.py
# writes k_active / v_active over the last s_active cache positions).

def _attn_tkg_head(params, cfg):
    """The wrapper's imports, signature, config and SBUF manager (as test_attention_tkg.py's test kernel makes it)."""
    return ["import nki", "import nki.isa as nisa", "import nki.language as nl",
            "from nkilib.core.attention.attention_tkg import attention_tkg",
            "from nkilib.core.attention.attention_tkg_utils import AttnTKGConfig",
            "from nkilib.core.utils.allocator import SbufManager", "from nkilib.core.utils.logging import Logger", "", "",
            "@nki.jit", f"def corpus_case({', '.join(params)}):", f"    cfg = AttnTKGConfig({cfg})",
            '    sbm = SbufManager(0, nl.tile_size.total_available_sbuf_size - 16 * 1024, Logger("SBM"))',
            "    sbm.open_scope()"]


def _attn_tkg_positions(bs, sa, sp, window):
    """The test's position ids: pos [bs, 1] of each batch's first new token, and rope_pos_ids [bs, sa] (with a
    sliding window each new token has its own, pos + i; without, all are pos)."""
    pos = ((np.arange(bs) * 3 + (sp // 4 * 3)) % (sp - sa))[:, None]
    return pos, (pos + np.arange(sa)[None, :] if window else np.broadcast_to(pos, (bs, sa)))


def _attn_tkg_core(k, q, v, keep, sink=None):
    """softmax(k^T q over keys where `keep`, plus a sink logit per head) applied to v: k [b, 1, d, s],
    q [b, n, d, a], v [b, 1, s, d], keep [b, 1 or n, s, a], sink [n, 1] -> [b, n, d, a] (attention_tkg_torch.py)."""
    score = np.where(keep, np.einsum("bzds,bnda->bnsa", k, q), -np.inf)
    if sink is not None:  # one more key per head, its logit the sink value, no value vector
        b, n, _, a = score.shape
        score = np.concatenate([score, np.broadcast_to(sink.astype(np.float64)[None, :, :, None], (b, n, 1, a))], 2)
    p = np.exp(score - score.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    return np.einsum("bnsa,bzsd->bnda", p[:, :, :k.shape[3]], v)


def _attn_tkg_wrapper(bs, nq, sa, sp, full, d, tp_k, out_in_sb, sink, strided=True):
    cfg = (f"bs={bs}, q_head={nq}, s_active={sa}, curr_sprior={sp}, full_sprior={full}, d_head={d}, block_len=0, "
           f"tp_k_prior={tp_k}, strided_mm1={strided}, qk_in_sb=True, k_out_in_sb={out_in_sb}, out_in_sb={out_in_sb}")
    out_shape = (d, bs * nq * sa) if out_in_sb else (bs, nq, d, sa)
    params = ["q", "k_active", "v_active", "k_prior", "v_prior", "mask"] + (["sink"] if sink else [])
    lines = _attn_tkg_head(params, cfg) + [
             (f"    out = sbm.alloc_stack({out_shape}, dtype=nl.bfloat16, buffer=nl.sbuf)" if out_in_sb else
              f"    out = nl.ndarray({out_shape}, dtype=nl.bfloat16, buffer=nl.shared_hbm)"),
             "    q_sb = sbm.alloc_stack(q.shape, dtype=q.dtype, buffer=nl.sbuf)",
             "    k_sb = sbm.alloc_stack(k_active.shape, dtype=k_active.dtype, buffer=nl.sbuf)",
             "    nisa.dma_copy(q_sb, q)", "    nisa.dma_copy(k_sb, k_active)",
             "    attn_out, _ = attention_tkg(q_sb, k_sb, v_active, k_prior, v_prior, mask, out, cfg, sbm"
             + (", sink=sink)" if sink else ")")]
    if out_in_sb:
        lines += ["    result = nl.ndarray(attn_out.shape, dtype=attn_out.dtype, buffer=nl.shared_hbm)",
                  "    nisa.dma_copy(dst=result, src=attn_out)", "    attn_out = result"]
    lines += ["    sbm.close_scope()", "    return attn_out"]
    return "\n".join(lines) + "\n"


def _attention_tkg(lnc, bs, nq, sa, sp, full, d, tp_k=False, out_in_sb=False, sink=False, fp8=False):
    """fp8: the test's FP8 KV cache (strided_mm1 off): q, k and v in float8_e4m3, q in [0, 1) and k, v in
    [-240, 240] as its generators make them; the output stays bf16."""
    kv = "float8_e4m3" if fp8 else BF16

    def kv_t(r, *shape):
        return T(r.uniform(-240, 240, shape).astype(np.float32), kv) if fp8 else randn(r, *shape, dtype=BF16)

    def args(r):
        lens = r.integers(1, sp - sa + 1, bs)  # cache positions each batch attends to (a prefix)
        mask = np.zeros((sp, bs, nq, sa), np.uint8)
        for b in range(bs):
            mask[:lens[b], b] = 1
            mask[sp - sa:, b] = np.tril(np.ones((sa, sa), np.uint8))[None].transpose(2, 0, 1)  # [key, 1, query]
        return {"q": T(r.random((d, bs * nq * sa)).astype(np.float32), kv) if fp8 else
                randn(r, d, bs * nq * sa, dtype=BF16),
                "k_active": kv_t(r, d, bs * sa), "v_active": kv_t(r, bs, 1, sa, d),
                "k_prior": kv_t(r, bs, 1, full, d) if tp_k else kv_t(r, bs, 1, d, full),
                "v_prior": kv_t(r, bs, 1, full, d), "mask": T(mask),
                **({"sink": T(r.uniform(10, 30, (nq, 1)).astype(np.float32))} if sink else {})}  # as large as the scores

    def ref(i):
        q = i["q"].astype(np.float64).reshape(d, bs, nq, sa).transpose(1, 2, 0, 3)          # [b, n, d, a]
        ka = i["k_active"].astype(np.float64).reshape(d, 1, bs, sa).transpose(2, 1, 0, 3)   # [b, 1, d, a]
        k = i["k_prior"].astype(np.float64)
        k = (k[:, :, :sp, :].transpose(0, 1, 3, 2) if tp_k else k[..., :sp]).copy()         # [b, 1, d, s]
        v = i["v_prior"].astype(np.float64)[:, :, :sp, :].copy()                            # [b, 1, s, d]
        k[..., sp - sa:] = ka
        v[:, :, sp - sa:, :] = i["v_active"]
        out = _attn_tkg_core(k, q, v, i["mask"].transpose(1, 2, 0, 3) != 0, i["sink"] if sink else None)
        return out.transpose(2, 0, 1, 3).reshape(d, bs * nq * sa) if out_in_sb else out

    name = (f"attention_tkg/lnc{lnc}_b{bs}_n{nq}_a{sa}_s{sp}_full{full}_d{d}"
            f"{'_tpk' if tp_k else ''}{'_out_sb' if out_in_sb else ''}{'_sink' if sink else ''}{'_fp8kv' if fp8 else ''}")
    return lib(name, "nkilib.core.attention.attention_tkg", "corpus_case", args, ref, atol=3e-2 if fp8 else 1e-5,
               rtol=3e-2 if fp8 else 2e-2, atol_scale=1e-2, lnc=lnc,
               wrapper=_attn_tkg_wrapper(bs, nq, sa, sp, full, d, tp_k, out_in_sb, sink, strided=not fp8))


def _attention_tkg_rope(lnc, bs, nq, sa, sp, full, d, window=0):
    """test_attention_tkg.py's fast configurations: RoPE fused (inv_freqs, rope_pos_ids) and the mask built in the
    kernel from the position ids (use_pos_id: a prefix of pos_id[b] cache positions plus the causal block of the new
    tokens; the mask input is that causal block, [s_active, b, n, s_active]); q, k_active in HBM, k_prior
    transposed on load; outputs the attention and the rotated k_active. Positions as the test makes them. With a
    sliding `window` over this flat (circular) cache, query i sits at pos_b + i and sees the positions from
    (pos_b + i - window + 1) mod s_prior up to it, wrapping (start_pos_ids; the test's build_swa_positions)."""
    pos, qpos = _attn_tkg_positions(bs, sa, sp, window)
    start = (qpos - window + 1) % sp
    params = ["q", "k_active", "v_active", "k_prior", "v_prior", "mask", "inv_freqs", "rope_pos_ids"]
    wrapper = "\n".join(_attn_tkg_head(params + (["start_pos_ids"] if window else []),
                                        f"bs={bs}, q_head={nq}, s_active={sa}, curr_sprior={sp}, full_sprior={full}, "
                                        f"d_head={d}, block_len=0, tp_k_prior=True, use_pos_id=True, fuse_rope=True") + [
        f"    out = nl.ndarray(({bs}, {nq}, {d}, {sa}), dtype=q.dtype, buffer=nl.shared_hbm)",
        f"    k_out = nl.ndarray(({bs}, 1, {d}, {sa}), dtype=q.dtype, buffer=nl.shared_hbm)",
        "    attn_out, k_out = attention_tkg(q, k_active, v_active, k_prior, v_prior, mask, out, cfg, sbm,",
        "                                    inv_freqs=inv_freqs, rope_pos_ids=rope_pos_ids, k_out=k_out"
        + (", start_pos_ids=start_pos_ids)" if window else ")"),
        "    sbm.close_scope()", "    return attn_out, k_out"]) + "\n"

    def args(r):
        causal = np.tril(np.ones((sa, sa), np.uint8))  # [query, key]
        mask = np.broadcast_to(causal.T[:, None, None, :], (sa, bs, nq, sa)).copy()  # [key, b, n, query]
        return {"q": randn(r, bs, nq, sa, d, dtype=BF16), "k_active": randn(r, bs, 1, sa, d, dtype=BF16),
                "v_active": randn(r, bs, 1, sa, d, dtype=BF16), "k_prior": randn(r, bs, 1, full, d, dtype=BF16),
                "v_prior": randn(r, bs, 1, full, d, dtype=BF16), "mask": T(mask),
                "inv_freqs": T(r.random((d // 2, 1)).astype(np.float32)),
                "rope_pos_ids": T(qpos.astype(np.float32)),
                **({"start_pos_ids": T(start.astype(np.float32))} if window else {})}

    def rope(x, cos, sin):  # x [b, n, d, a]; cos, sin [d, b, a]
        xt = x.transpose(2, 0, 1, 3)
        rot = np.concatenate([-xt[d // 2:], xt[:d // 2]])
        return (xt * cos[:, :, None, :] + rot * sin[:, :, None, :]).transpose(1, 2, 0, 3)

    def ref(i):
        freqs = i["inv_freqs"].astype(np.float64)[:, 0, None, None] * i["rope_pos_ids"].astype(np.float64)[None]
        emb = np.concatenate([freqs, freqs])  # [d, b, a]
        cos, sin = np.cos(emb), np.sin(emb)
        q = rope(i["q"].astype(np.float64).transpose(0, 1, 3, 2), cos, sin) / np.sqrt(d)
        ka = rope(i["k_active"].astype(np.float64).transpose(0, 1, 3, 2), cos, sin)
        k = i["k_prior"].astype(np.float64)[:, :, :sp, :].transpose(0, 1, 3, 2).copy()
        v = i["v_prior"].astype(np.float64)[:, :, :sp, :].copy()
        k[..., sp - sa:] = ka
        v[:, :, sp - sa:, :] = i["v_active"]
        keys = np.arange(sp)[None, :, None]
        end = qpos[:, None, :]
        mask = keys < end                                                                   # [b, s, a]
        if window:
            first = start[:, None, :]
            mask = np.where(first <= end, (keys >= first) & (keys < end), (keys >= first) | (keys < end))
        mask[:, sp - sa:, :] = np.tril(np.ones((sa, sa), bool)).T[None]
        return _attn_tkg_core(k, q, v, mask[:, None]), ka

    return lib(f"attention_tkg/lnc{lnc}_b{bs}_n{nq}_a{sa}_s{sp}_full{full}_d{d}_rope_pos_id"
               f"{f'_window{window}' if window else ''}",
               "nkilib.core.attention.attention_tkg", "corpus_case", args, ref, atol=1e-5, rtol=2e-2,
               atol_scale=1e-2, lnc=lnc, wrapper=wrapper)


def _attention_tkg_block(lnc, bs, nq, sa, sp, d, blk, window=0):
    """test_attention_tkg.py's block-KV configurations with position ids (mask built in the kernel), q / k_active /
    output in SBUF, a sink: k_prior / v_prior are [blocks, blk, d] caches that active_blocks_table [bs, sp / blk]
    maps each batch onto (distinct blocks; those past a batch's context point at block 0, as the test makes them);
    the reference gathers them flat as attention_tkg_torch.py does. With a sliding `window`, query i of batch b
    (position pos_b + i) sees cache positions [max(0, pos_b + i - window + 1), pos_b + i), given as start_pos_ids
    (the test's build_swa_positions for a block cache)."""
    pos, qpos = _attn_tkg_positions(bs, sa, sp, window)
    nblk = bs * sp // blk
    out_shape = (d, bs * nq * sa)
    params = ["q", "k_active", "v_active", "k_prior", "v_prior", "mask", "rope_pos_ids", "sink", "active_blocks_table"]
    wrapper = "\n".join(_attn_tkg_head(params + (["start_pos_ids"] if window else []),
                                        f"bs={bs}, q_head={nq}, s_active={sa}, curr_sprior={sp}, full_sprior={sp}, "
                                        f"d_head={d}, block_len={blk}, tp_k_prior=True, strided_mm1=False, "
                                        "use_pos_id=True, qk_in_sb=True, k_out_in_sb=True, out_in_sb=True") + [
        f"    out = sbm.alloc_stack({out_shape}, dtype=q.dtype, buffer=nl.sbuf)",
        "    q_sb = sbm.alloc_stack(q.shape, dtype=q.dtype, buffer=nl.sbuf)",
        "    k_sb = sbm.alloc_stack(k_active.shape, dtype=k_active.dtype, buffer=nl.sbuf)",
        "    nisa.dma_copy(q_sb, q)", "    nisa.dma_copy(k_sb, k_active)",
        "    attn_out, _ = attention_tkg(q_sb, k_sb, v_active, k_prior, v_prior, mask, out, cfg, sbm,",
        "                                rope_pos_ids=rope_pos_ids, sink=sink, active_blocks_table=active_blocks_table"
        + (", start_pos_ids=start_pos_ids)" if window else ")"),
        "    result = nl.ndarray(attn_out.shape, dtype=attn_out.dtype, buffer=nl.shared_hbm)",
        "    nisa.dma_copy(dst=result, src=attn_out)", "    sbm.close_scope()", "    return result"]) + "\n"

    def args(r):
        table = r.choice(nblk, size=(bs, sp // blk), replace=False).astype(np.uint32)
        for b in range(bs):
            table[b, -(-(int(pos[b, 0]) + sa) // blk):] = 0  # past the context: block 0
        causal = np.tril(np.ones((sa, sa), np.uint8))
        return {"q": randn(r, d, bs * nq * sa, dtype=BF16), "k_active": randn(r, d, bs * sa, dtype=BF16),
                "v_active": randn(r, bs, 1, sa, d, dtype=BF16), "k_prior": randn(r, nblk, blk, d, dtype=BF16),
                "v_prior": randn(r, nblk, blk, d, dtype=BF16),
                "mask": T(np.broadcast_to(causal.T[:, None, None, :], (sa, bs, nq, sa)).copy()),
                "rope_pos_ids": T(qpos.astype(np.float32)),
                "sink": T(r.uniform(10, 30, (nq, 1)).astype(np.float32)), "active_blocks_table": T(table),
                **({"start_pos_ids": T(np.maximum(0, qpos - window + 1).astype(np.float32))} if window else {})}

    def ref(i):
        table = i["active_blocks_table"].astype(np.int64)
        k = i["k_prior"].astype(np.float64)[table].reshape(bs, 1, sp, d).transpose(0, 1, 3, 2).copy()
        v = i["v_prior"].astype(np.float64)[table].reshape(bs, 1, sp, d).copy()
        q = i["q"].astype(np.float64).reshape(d, bs, nq, sa).transpose(1, 2, 0, 3)
        k[..., sp - sa:] = i["k_active"].astype(np.float64).reshape(d, 1, bs, sa).transpose(2, 1, 0, 3)
        v[:, :, sp - sa:, :] = i["v_active"]
        keys = np.arange(sp)[None, :, None]
        mask = keys < qpos[:, None, :]                                                      # [b, s, a]
        if window:
            mask &= keys >= np.maximum(0, qpos - window + 1)[:, None, :]
        mask[:, sp - sa:, :] = np.tril(np.ones((sa, sa), bool)).T[None]
        out = _attn_tkg_core(k, q, v, mask[:, None], i["sink"])
        return out.transpose(2, 0, 1, 3).reshape(d, bs * nq * sa)

    return lib(f"attention_tkg/lnc{lnc}_b{bs}_n{nq}_a{sa}_s{sp}_d{d}_block{blk}_pos_id_sink"
               f"{f'_window{window}' if window else ''}",
               "nkilib.core.attention.attention_tkg", "corpus_case", args, ref, atol=1e-5, rtol=2e-2,
               atol_scale=1e-2, lnc=lnc, wrapper=wrapper)


def _out_proj_cte(lnc, b, s, h, n, d, bias):
    def args(r):
        return {"attention": randn(r, b, n, d, s, dtype=BF16), "weight": randn(r, n * d, h, dtype=BF16),
                "bias": randn(r, 1, h, dtype=BF16) if bias else None,
                "quantization_type": Expr("QuantizationType.NONE", QT)}

    def ref(i):
        out = i["attention"].transpose(0, 3, 1, 2).reshape(b, s, n * d) @ i["weight"]
        return out + i["bias"] if bias else out
    return lib(f"output_projection_cte/lnc{lnc}_b{b}_s{s}_h{h}_n{n}_d{d}{'_bias' if bias else ''}",
               "nkilib.core.output_projection.output_projection_cte.output_projection_cte", "output_projection_cte",
               args, ref, atol=1e-5, rtol=2e-2, atol_scale=1e-2, lnc=lnc)


# ---------------------------------------------------------------- attention

def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attention_cte(lnc, bs, s_kv, s_q, d, scale, dtype, causal, tp_q, tp_out, bs_kv=None):
    bs_kv = bs_kv or bs

    def args(r):
        return {"q": uniform(r, *((bs, s_q, d) if tp_q else (bs, d, s_q)), dtype=dtype),
                "k": uniform(r, bs_kv, d, s_kv, dtype=dtype), "v": uniform(r, bs_kv, s_kv, d, dtype=dtype),
                "scale": scale, "causal_mask": causal, "tp_q": tp_q, "tp_k": False, "tp_out": tp_out}

    def ref(i):
        q = i["q"].astype(np.float64)
        q = q if tp_q else q.transpose(0, 2, 1)  # [bs, s_q, d]
        k = np.repeat(i["k"].astype(np.float64), bs // bs_kv, 0)
        v = np.repeat(i["v"].astype(np.float64), bs // bs_kv, 0)
        qk = q @ k * scale
        if causal:
            qk = np.where(np.arange(s_kv)[None, :] > np.arange(s_q)[:, None], -np.inf, qk)
        out = _softmax(qk) @ v
        return out.transpose(0, 2, 1) if tp_out else out
    return lib(f"attention_cte/lnc{lnc}_bs{bs}_skv{s_kv}_sq{s_q}_d{d}_{dtype}{'_causal' if causal else ''}"
               f"{'_tpq' if tp_q else ''}{'_tpout' if tp_out else ''}", "nkilib.core.attention.attention_cte",
               "attention_cte", args, ref, atol=1e-5, rtol=2e-2, atol_scale=1e-2, lnc=lnc)


def uniform(rng, *shape, dtype="float32", lo=0.0, hi=1.0):
    return T(rng.uniform(lo, hi, shape).astype(np.float32), dtype)


# ---------------------------------------------------------------- router_topk

def _router_topk(lnc, t, h, e, k, act, bias, pre_norm, norm_topk=False, x_layout=0, indirect=False, pe_bcast=False,
                 shard_on_tokens=False):
    def args(r):
        return {"x": uniform(r, *((t, h) if x_layout == 1 else (h, t)), dtype=BF16, lo=-0.1, hi=0.1),
                "w": uniform(r, h, e, dtype=BF16, lo=-0.1, hi=0.1),
                "w_bias": uniform(r, 1, e, dtype=BF16, lo=-0.1, hi=0.1) if bias else None,
                "router_logits": T(np.zeros((t, e), np.float32), BF16),
                "expert_affinities": T(np.zeros((t, e), np.float32), BF16),
                "expert_index": T(np.zeros((t, k), np.uint32)),
                "act_fn": Expr(f"RouterActFnType.{act}",
                               ("from nkilib.core.utils.common_types import RouterActFnType",)),
                "k": k, "x_hbm_layout": x_layout, "x_sb_layout": 0, "router_pre_norm": pre_norm,
                "norm_topk_prob": norm_topk, "use_column_tiling": False, "use_indirect_dma_scatter": indirect,
                "use_PE_broadcast_w_bias": pe_bcast, "shard_on_tokens": shard_on_tokens}

    def act_fn(x):
        return _softmax(x) if act == "SOFTMAX" else 1 / (1 + np.exp(-x))

    def logits(i):
        x = i["x"].astype(np.float64)
        lg = (x if x_layout == 1 else x.T) @ i["w"]
        return lg + i["w_bias"] if bias else lg

    def ref(i):
        lg = logits(i)
        idx = np.argsort(-lg, -1, kind="stable")[:, :k]
        rows = np.arange(t)[:, None]
        aff = np.zeros_like(lg)
        if pre_norm:
            full = act_fn(lg)
            if norm_topk:
                aff[rows, idx] = full[rows, idx]
                aff /= aff.sum(1, keepdims=True)
            else:
                aff = full
        else:
            aff[rows, idx] = act_fn(lg[rows, idx])
        return [lg, np.sort(lg[rows, idx], -1), aff]

    def post(outs, i):  # written: logits, affinities, index. Ties may order experts differently: compare the
        lg = logits(i)  # logits the chosen indices select, sorted
        out_lg, out_aff, out_idx = outs[-3:]
        return [out_lg, np.sort(lg[np.arange(t)[:, None], np.asarray(out_idx).astype(np.int64)], -1), out_aff]
    return lib(f"router_topk/lnc{lnc}_t{t}_h{h}_e{e}_k{k}_{act.lower()}{'_bias' if bias else ''}"
               f"{'_prenorm' if pre_norm else ''}{'_normtopk' if norm_topk else ''}_x{x_layout}"
               f"{'_indirect' if indirect else ''}{'_shardT' if shard_on_tokens else ''}",
               "nkilib.core.router_topk.router_topk", "router_topk", args, ref, atol=1e-5, rtol=2e-2,
               atol_scale=1e-2, lnc=lnc, written=("router_logits", "expert_affinities", "expert_index"), post=post)


def _tr(x):
    return np.swapaxes(x, -1, -2)


def _attn_fwd(q, k, v, causal, scale):
    """q [B, H, d, Sq], k/v [B, Hkv, d, Sk] -> (P [B, H, Sq, Sk], O [B, H, d, Sq], lse [B, H, Sq])."""
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, 1), np.repeat(v, g, 1)
    s = scale * (_tr(q) @ k)
    if causal:
        s[..., np.triu(np.ones(s.shape[-2:], bool), 1)] = -np.inf
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    total = e.sum(-1, keepdims=True)
    p = e / total
    return p, _tr(p @ _tr(v)), (m + np.log(total))[..., 0]


def _attention_bwd(lnc, b, hq, hkv, s, d, dtype, causal):
    scale = 1.0 / np.sqrt(d)

    def args(r):
        q, k, v, dy = (randn(r, b, h, d, s, dtype=dtype) for h in (hq, hkv, hkv, hq))
        _, o, lse = _attn_fwd(q.data.astype(np.float64), k.data.astype(np.float64), v.data.astype(np.float64),
                              causal, scale)
        lse = lse.reshape(b, hq, s // 128, 128).transpose(0, 1, 3, 2)  # [B, H, 128, S/128]
        return {"q_ref": q, "k_ref": k, "v_ref": v, "o_ref": T(o.astype(np.float32), dtype), "dy_ref": dy,
                "lse_ref": T(lse.astype(np.float32)), "use_causal_mask": causal, "mixed_precision": True}

    def ref(i):
        q, k, v, o, dy = (i[n].astype(np.float64) for n in ("q_ref", "k_ref", "v_ref", "o_ref", "dy_ref"))
        g = hq // hkv
        p, _, _ = _attn_fwd(q, k, v, causal, scale)
        kk, vv = np.repeat(k, g, 1), np.repeat(v, g, 1)
        dv = _tr(_tr(p) @ _tr(dy))
        ds = p * (_tr(dy) @ vv - (dy * o).sum(2)[..., None])
        dq = scale * _tr(ds @ _tr(kk))
        dk = scale * _tr(_tr(ds) @ _tr(q))
        fold = lambda x: x.reshape(b, hkv, g, d, s).sum(2)  # noqa: E731 (GQA: sum the group's gradients)
        return [dq, fold(dk), fold(dv)]
    return lib(f"attention_bwd/lnc{lnc}_b{b}_hq{hq}_hkv{hkv}_s{s}_d{d}_{dtype}{'_causal' if causal else ''}",
               "nkilib.core.attention.attention_bwd", "attention_bwd", args, ref, atol=1e-5, rtol=2e-2,
               atol_scale=1e-2, lnc=lnc)


# ---------------------------------------------------------------- moe_tkg

MOE_IMPORTS = ("from nkilib.core.utils.common_types import ActFnType, ExpertAffinityScaleMode",)


def _expert_act(x, act):
    return _silu(x) if act == "SiLU" else x / (1 + np.exp(-1.702 * x))


def _expert_mlp(x, gate_up, down, act, clamp, gate_up_b=None, down_b=None):
    """One expert: gate_up [H, 2, I], down [I, H]; clamps as the library's tests set them (gate <= 7, up in [-6, 8])."""
    gate, up = x @ gate_up[:, 0, :], x @ gate_up[:, 1, :]
    if gate_up_b is not None:
        gate, up = gate + gate_up_b[0], up + gate_up_b[1]
    if clamp:
        gate, up = np.minimum(gate, 7.0), np.clip(up, -6.0, 8.0)
    out = (_expert_act(gate, act) * up) @ down
    return out + down_b if down_b is not None else out


def _moe_affinities(r, t, e, k):
    """Each token picks k distinct experts; affinities: a random distribution over them, zero elsewhere."""
    idx = np.stack([r.choice(e, k, replace=False) for _ in range(t)])
    w = r.random((t, k))
    aff = np.zeros((t, e), np.float32)
    for i in range(t):
        aff[i, idx[i]] = w[i] / w[i].sum()
    return idx.astype(np.int32), aff


def _moe_tkg(lnc, t, h, i_dim, e, top_k, act, all_expert, clamp, bias, dtype="float16", **kw):
    k = top_k or e

    def args(r):
        idx, aff = _moe_affinities(r, t, e, k)
        a = {"hidden_input": randn(r, t, h, dtype=dtype),
             "expert_gate_up_weights": randn(r, e, h, 2, i_dim, dtype=dtype),
             "expert_down_weights": randn(r, e, i_dim, h, dtype=dtype),
             "expert_affinities": T(aff, BF16 if all_expert else "float32"), "expert_index": T(idx),
             "is_all_expert": all_expert,
             "rank_id": T(np.zeros((1, 1), np.uint32)) if all_expert else None,
             "expert_gate_up_bias": randn(r, e, 2, i_dim, dtype=dtype) if bias else None,
             "expert_down_bias": randn(r, e, h, dtype=dtype) if bias else None,
             "expert_affinities_scaling_mode": Expr("ExpertAffinityScaleMode.POST_SCALE", MOE_IMPORTS),
             "activation_fn": Expr(f"ActFnType.{act}", MOE_IMPORTS)}
        if clamp:
            a.update(gate_clamp_upper_limit=7.0, up_clamp_upper_limit=8.0, up_clamp_lower_limit=-6.0)
        return a

    def ref(i):
        x = i["hidden_input"].astype(np.float64)
        out = np.zeros_like(x)
        # all-expert: every expert, weighted by its affinity column; selective: every (token, slot) of
        # expert_index, as the test's reference does -- indices are drawn with replacement, so an expert listed
        # twice for a token contributes twice
        slots = [(np.arange(t), ex) for ex in range(e)] if all_expert else \
            [([tok], int(i["expert_index"][tok, j])) for tok in range(t) for j in range(k)]
        for rows, ex in slots:
            y = _expert_mlp(x[rows], i["expert_gate_up_weights"][ex], i["expert_down_weights"][ex], act, clamp,
                            i["expert_gate_up_bias"][ex] if bias else None, i["expert_down_bias"][ex] if bias else None)
            out[rows] += i["expert_affinities"][rows, ex:ex + 1] * y
        return out
    return lib(f"moe_tkg/lnc{lnc}_t{t}_h{h}_i{i_dim}_e{e}_k{top_k}_{act}_{'all' if all_expert else 'selective'}"
               f"{'_clamp' if clamp else ''}{'_bias' if bias else ''}_{dtype}", "nkilib.core.moe.moe_tkg.moe_tkg",
               "moe_tkg", args, ref, atol=1e-5, rtol=2e-2, atol_scale=1e-2, lnc=lnc, **kw)


# ---------------------------------------------------------------- moe_cte (blockwise matmul)

MOE_CTE_IMPORTS = ("from nkilib.core.moe.moe_cte.moe_cte import MoECTESpec, MoECTEImplementation",
                   "from nkilib.core.utils.common_types import ActFnType, ExpertAffinityScaleMode")


def _moe_cte_routing(r, t, e, b, k, per_iter=1):
    """Tokens routed to k experts each, packed into blocks of b positions per expert (padding points at token t);
    the block count is a multiple of per_iter (the core count when blocks are sharded)."""
    n = -(-(t * k - (e - 1)) // b) + e - 1
    n = per_iter * -(-n // per_iter)
    chosen = np.stack([r.choice(e, k, replace=False) for _ in range(t)])
    mask = np.zeros((t, e), bool)
    mask[np.arange(t)[:, None], chosen] = True
    per_expert = -(-mask.sum(0) // b)
    per_expert[-1] += n - per_expert.sum()
    block_to_expert = np.repeat(np.arange(e), per_expert).astype(np.int32)
    pos = np.full(n * b, t, np.int32)
    start = np.concatenate([[0], np.cumsum(per_expert)[:-1]]) * b
    for ex in range(e):
        toks = np.nonzero(mask[:, ex])[0]
        pos[start[ex]:start[ex] + len(toks)] = toks
    return mask, pos, block_to_expert.reshape(n, 1)


def _moe_cte(lnc, impl, h, t, e, b, k, i_dim, act="SiLU", bias=False, clamp=None):
    def args(r):
        mask, pos, b2e = _moe_cte_routing(r, t, e, b, k, lnc if impl == "shard_on_block" else 1)
        aff = r.random((t + 1, e)).astype(np.float32)
        aff[:t] *= mask
        aff[t] = 0
        x = r.random((t + 1, h)).astype(np.float32)
        x[t] = 0
        a = {"hidden_states": T(x, BF16), "expert_affinities_masked": T(aff.reshape(-1, 1), BF16),
             "gate_up_proj_weight": uniform(r, e, h, 2, i_dim, dtype=BF16, lo=-0.1, hi=0.1),
             "down_proj_weight": uniform(r, e, i_dim, h, dtype=BF16, lo=-0.1, hi=0.1),
             "token_position_to_id": T(pos), "block_to_expert": T(b2e), "block_size": b,
             "spec": Expr(f"MoECTESpec(implementation=MoECTEImplementation.{impl})", MOE_CTE_IMPORTS)}
        if bias:
            a["gate_and_up_proj_bias"] = uniform(r, e, 2, i_dim, dtype=BF16, lo=-1.0, hi=1.0)
            a["down_proj_bias"] = uniform(r, e, h, dtype=BF16, lo=-1.632, hi=1.4375)
        a["activation_function"] = Expr(f"ActFnType.{act}", MOE_CTE_IMPORTS)
        a["expert_affinities_scaling_mode"] = Expr("ExpertAffinityScaleMode.POST_SCALE", MOE_CTE_IMPORTS)
        if clamp:
            a.update(gate_clamp_upper_limit=clamp[0], gate_clamp_lower_limit=clamp[1], up_clamp_upper_limit=clamp[2],
                     up_clamp_lower_limit=clamp[3])
        return a

    def ref(i):
        x, aff = i["hidden_states"].astype(np.float32), i["expert_affinities_masked"].reshape(t + 1, e)
        out = np.zeros((t + 1, h), np.float32)
        for ex in range(e):
            rows = np.nonzero(aff[:t, ex])[0]
            gu = i["gate_up_proj_weight"][ex]
            gate, up = x[rows] @ gu[:, 0], x[rows] @ gu[:, 1]
            if bias:
                gate, up = gate + i["gate_and_up_proj_bias"][ex, 0], up + i["gate_and_up_proj_bias"][ex, 1]
            if clamp:
                gate = np.clip(gate, clamp[1], clamp[0])
                up = np.clip(up, clamp[3], clamp[2])
            y = (_expert_act(gate, act) * up) @ i["down_proj_weight"][ex]
            if bias:
                y = y + i["down_proj_bias"][ex]
            out[rows] += aff[rows, ex:ex + 1] * y
        return [out[:t], np.zeros((t, h), np.float32)] if separate else [out]

    # Block sharding with top-k > 1 accumulates one partial output per core, [T+1, lnc, H], then core 0's lane
    # holds the sum and core 1's lane is zeroed (the test's golden: lane 0 = result, lane 1 = 0). Row T, the
    # padding tokens' scratch row, is excluded there: the kernel's zero-initialisation skips a one-row tile
    # (bwmm_output_initialization) and the final reduction covers rows [0, T) only, so the kernel accumulates
    # into a row it never wrote -- undefined on hardware (zero only if the HBM happens to be), NaN in nki-sim.
    separate = impl == "shard_on_block" and k > 1

    def post(outs, i):
        o = np.asarray(outs[0])
        return [o[:t, 0], o[:t, 1]] if separate else [o]
    return lib(f"moe_cte/lnc{lnc}_{impl}_h{h}_t{t}_e{e}_b{b}_k{k}_i{i_dim}_{act}{'_bias' if bias else ''}"
               f"{'_clamp' if clamp else ''}", "nkilib.core.moe.moe_cte.moe_cte", "moe_cte", args, ref,
               atol=1e-5, rtol=2e-2, atol_scale=1e-2, lnc=lnc, post=post)


# ---------------------------------------------------------------- gen_mask_tkg (the HBM entry point)

def _gen_mask_tkg_hbm(lnc, bs, q_head, s_prior, s_active):
    def args(r):
        start = r.integers(0, s_prior - s_active, bs)
        pos = (start[:, None] + np.arange(s_active)[None, :]).reshape(1, bs * s_active).astype(np.float32)
        return {"pos_ids_hbm": T(pos), "bs": bs, "q_head": q_head, "s_active": s_active, "s_prior": s_prior,
                "block_len": 0}

    def ref(i):  # flat KV cache: position k of batch b is visible when k < its cache length (pos_ids[b, 0])
        cache_len = i["pos_ids_hbm"][0, ::s_active][:bs]
        mask = (np.arange(s_prior)[None, :] < cache_len[:, None]).astype(np.float32)  # [bs, s_prior]
        full = np.broadcast_to(mask[:, None, None, :], (bs, q_head, s_active, s_prior))
        n = s_prior // 128  # strided MM1 layout: k -> (partition k // n, column k % n), stored column-major
        tiled = full.reshape(bs, q_head, s_active, 128, n).transpose(4, 3, 0, 1, 2)
        return tiled.reshape(s_prior, bs, q_head, s_active)
    return lib(f"gen_mask_tkg/hbm_lnc{lnc}_bs{bs}_qh{q_head}_sprior{s_prior}_sa{s_active}",
               "nkilib.core.attention.gen_mask_tkg", "gen_mask_tkg_hbm", args, ref, atol=0, rtol=0, lnc=lnc)


# ---------------------------------------------------------------- rmsnorm_mx_quantize_tkg (SBUF outputs: nkisim.sbuf_output)

def _sbuf_out(shape, dtype, split):  # an SBUF tile the kernel writes; each of the two cores holds its half of `split`
    return Expr(f"nkisim.sbuf_output({shape!r}, {dtype!r}, split={split})", ("import nkisim",))


def _rmsnorm_mx_quantize_tkg(b, s, h, h_actual=None, residual=False, dtype="float16"):
    t, h1 = b * s, h // 128

    def args(r):
        return {"input": randn(r, b, s, h, dtype=dtype), "gamma": randn(r, 1, h, dtype=dtype),
                "output": _sbuf_out((128, t, h1), dtype, 1),
                "output_quant": _sbuf_out((128, h1 // 4, t), "float8_e4m3fn_x4", 2),
                "output_scale": _sbuf_out((128, h1 // 4, t), "uint8", 2),
                "residual": randn(r, b, s, h, dtype=dtype) if residual else None,
                "output_residual": T(np.zeros((t, h), np.float32), dtype) if residual else None,
                "hidden_actual": h_actual}

    def ref(i):  # the normalized output [128, B*S, H/128] (H viewed as (H/128, 128)) and the residual sum; the
        x = i["input"].astype(np.float32)  # MX-quantized copy and its scales are not compared
        if residual:
            x = x + i["residual"]
        y = x / np.sqrt(np.square(x).sum(-1, keepdims=True) / (h_actual or h) + 1e-6) * i["gamma"]
        return [y.reshape(t, h1, 128).transpose(2, 0, 1), None, None] + ([x.reshape(t, h)] if residual else [])
    return lib(f"rmsnorm_mx_quantize_tkg/lnc2_b{b}_s{s}_h{h}{f'_ha{h_actual}' if h_actual else ''}"
               f"{'_residual' if residual else ''}",
               "nkilib.core.subkernels.rmsnorm_mx_quantize_tkg", "rmsnorm_mx_quantize_tkg", args, ref, atol=1e-3,
               rtol=1e-2, lnc=2, target="trn3")


# ---------------------------------------------------------------- moe_block_tkg (RMSNorm + router top-k + experts)

MOE_BLOCK_IMPORTS = ("from nkilib.core.utils.common_types import ActFnType, ExpertAffinityScaleMode, RouterActFnType",
                     "import nki.language as nl")


def _moe_block_tkg(lnc, b, s, h, i_dim, e, k, h_actual=None, dtype="float16"):
    clamp = (7.0, None, 8.0, -6.0)  # the library tests' limits: gate <= 7, up in [-6, 8]

    def args(r):
        return {"inp": uniform(r, b, s, h, dtype=dtype, lo=-0.1, hi=0.1),
                "gamma": uniform(r, 1, h, dtype=dtype, lo=-0.1, hi=0.1),
                "router_weights": uniform(r, h, e, dtype=dtype, lo=-0.1, hi=0.1),
                "expert_gate_up_weights": randn(r, e, h, 2, i_dim, dtype=dtype),
                "expert_down_weights": randn(r, e, i_dim, h, dtype=dtype),
                "router_bias": uniform(r, 1, e, dtype=dtype, lo=-0.1, hi=0.1),
                "expert_gate_up_bias": randn(r, e, 2, i_dim, dtype=dtype),
                "expert_down_bias": randn(r, e, h, dtype=dtype),
                "top_k": k, "router_act_fn": Expr("RouterActFnType.SOFTMAX", MOE_BLOCK_IMPORTS),
                "router_pre_norm": False, "norm_topk_prob": False,
                "expert_affinities_scaling_mode": Expr("ExpertAffinityScaleMode.POST_SCALE", MOE_BLOCK_IMPORTS),
                "hidden_act_fn": Expr("ActFnType.Swish", MOE_BLOCK_IMPORTS),
                "gate_clamp_upper_limit": clamp[0], "up_clamp_upper_limit": clamp[2], "up_clamp_lower_limit": clamp[3],
                "router_mm_dtype": Expr(f"nl.{dtype}", MOE_BLOCK_IMPORTS), "hidden_actual": h_actual}

    def ref(i):
        x = i["inp"].reshape(b * s, h).astype(np.float32)
        x = x / np.sqrt(np.square(x).sum(-1, keepdims=True) / (h_actual or h) + 1e-6) * i["gamma"]
        x = x.astype(dtype).astype(np.float64)  # the normalized activations feed both matmuls in the input dtype
        logits = x @ i["router_weights"] + i["router_bias"]
        order = np.argsort(-logits, -1, kind="stable")
        top = order[:, :k]
        rows = np.arange(b * s)[:, None]
        aff = _softmax(logits[rows, top])  # router_pre_norm=False: softmax over the top-k logits
        out = np.zeros((b * s, h))
        for t in range(b * s):
            for j, ex in enumerate(top[t]):
                out[t] += aff[t, j] * _expert_mlp(x[t:t + 1], i["expert_gate_up_weights"][ex],
                                                  i["expert_down_weights"][ex], "Swish", True,
                                                  i["expert_gate_up_bias"][ex], i["expert_down_bias"][ex])[0]
        # a token whose k-th and (k+1)-th logits nearly tie may route either way: its row is not compared
        srt = np.take_along_axis(logits, order, -1)
        out[np.abs(srt[:, k - 1] - srt[:, k]) < 1e-3] = np.nan
        return out

    def post(outs, i):  # rows the reference leaves out (NaN) are left out of the kernel's output too
        expected = ref(i)
        o = np.asarray(outs[0], np.float64).reshape(expected.shape).copy()
        o[np.isnan(expected).any(1)] = np.nan
        return [o]
    return lib(f"moe_block_tkg/lnc{lnc}_b{b}_s{s}_h{h}{f'_ha{h_actual}' if h_actual else ''}_i{i_dim}_e{e}_k{k}",
               "nkilib.core.moe_block.moe_block_tkg", "moe_block_tkg", args, ref, atol=1e-5, rtol=1e-2,
               atol_scale=1e-2, lnc=lnc, post=post)


# ---------------------------------------------------------------- experimental: conv1d

CONV_IMPORTS = ("from nkilib.core.utils.common_types import ActFnType",)


def _conv1d(lnc, b, cin, cout, length, k, stride, pad_l, pad_r, dil, use_bias, act, shard, dtype="float32"):
    """test/integration/nkilib/experimental/conv/test_conv1d.py's parameters; its reference is torch's Conv1d
    (x [B, C_in, L], filters [K, C_in, C_out], bias [C_out]) then the activation."""
    def ref(i):
        x = np.pad(i["x_in"].astype(np.float64), ((0, 0), (0, 0), (pad_l, pad_r)))
        f = i["filters"].astype(np.float64)
        l_out = (length + pad_l + pad_r - dil * (k - 1) - 1) // stride + 1
        t = np.arange(l_out) * stride
        out = sum(np.einsum("bcl,co->bol", x[:, :, t + kk * dil], f[kk]) for kk in range(k))
        if use_bias:
            out = out + i["bias"].astype(np.float64)[None, :, None]
        return _act(out, act) if act else out
    args = lambda r: {"x_in": randn(r, b, cin, length, dtype=dtype), "filters": randn(r, k, cin, cout, dtype=dtype),
                      "bias": randn(r, cout, dtype=dtype) if use_bias else None, "stride": stride,
                      "padding": (pad_l, pad_r), "dilation": dil,
                      "activation_fn": Expr(f"ActFnType.{act}", CONV_IMPORTS) if act else None, "lnc_shard": shard}
    # The test's tolerances (torch's fp32 against the device's fp32); against our float64 reference an fp32 sum of
    # C_in x K products carries its own rounding, a few fp32 ulps of the largest output (atol_scale).
    tol = 5e-2 if dtype == BF16 else 1e-5
    return lib(f"conv1d/lnc{lnc}_b{b}_cin{cin}_cout{cout}_l{length}_k{k}_s{stride}_p{pad_l}-{pad_r}_d{dil}"
               f"{'_bias' if use_bias else ''}{'_' + act if act else ''}{'_shard' if shard else ''}_{dtype}",
               "nkilib.experimental.conv.conv1d", "conv1d", args, ref, atol=tol, rtol=tol,
               atol_scale=0 if dtype == BF16 else 4e-7, lnc=lnc)


def _depthwise_conv1d(b, ch, width, k, stride, pad, dtype=BF16):
    """test_depthwise_conv1d.py's parameters (LNC=2); its reference is torch's conv2d with groups=C on
    img [B, C, 1, W] and filters [C, 1, 1, S]."""
    def ref(i):
        x = np.pad(i["img_ref"][:, :, 0, :].astype(np.float64), ((0, 0), (0, 0), pad))
        f = i["filter_ref"][:, 0, 0, :].astype(np.float64)
        q = (width + pad[0] + pad[1] - k) // stride + 1
        t = np.arange(q) * stride
        out = sum(x[:, :, t + s] * f[None, :, s, None] for s in range(k))
        return out[:, :, None, :]
    args = lambda r: {"img_ref": randn(r, b, ch, 1, width, dtype=dtype), "filter_ref": randn(r, ch, 1, 1, k, dtype=dtype),
                      "padding": ((0, 0), pad), "stride": (1, stride), "rhs_dilation": (1, 1), "lhs_dilation": (1, 1),
                      "feature_group_count": ch, "batch_group_count": 1}
    return lib(f"depthwise_conv1d/lnc2_b{b}_c{ch}_w{width}_k{k}_s{stride}_p{pad[0]}-{pad[1]}_{dtype}",
               "nkilib.experimental.conv.depthwise_conv1d", "depthwise_conv1d_implicit_gemm", args, ref,
               atol=1e-2, rtol=1e-2, lnc=2)


def _cross_entropy_forward(b, t, v, dtype, pb, cs):
    """test_cross_entropy_forward.py's [B, T, V, dtype, PB, CS] rows (default LNC, 2); its reference is torch's
    cross_entropy (reduction none) and logsumexp, computed in the logits' dtype."""
    n = b * t

    def args(r):
        return {"logits_hbm": randn(r, n, v, dtype=dtype), "targets_hbm": T(r.integers(0, v, n).astype(np.int32)),
                "positions_per_batch": pb, "chunk_size": cs, "dtype": Expr(f"nl.{dtype}", ("import nki.language as nl",))}

    def ref(i):
        x = i["logits_hbm"].astype(np.float64)
        m = x.max(1)
        lse = m + np.log(np.exp(x - m[:, None]).sum(1))
        return lse - x[np.arange(n), i["targets_hbm"]], lse
    tol = 1e-2 if dtype == BF16 else 1e-5  # the test's
    return lib(f"cross_entropy_forward/lnc2_b{b}_t{t}_v{v}_{dtype}_pb{pb}_cs{cs}",
               "nkilib.experimental.loss.cross_entropy", "cross_entropy_forward", args, ref, atol=tol, rtol=tol, lnc=2)


def _dynamic_elementwise_add(m, h):
    """test_dynamic_elementwise_add.py's M x H sweep: bf16, num_m_tiles = M / 128 (a run-time trip count); its
    reference is torch's bf16 add, compared with atol 1e-3."""
    return lib(f"dynamic_elementwise_add/{m}x{h}", "nkilib.experimental.dynamic_shapes.dynamic_elementwise_add",
               "dynamic_elementwise_add",
               lambda r: {"input_a": randn(r, m, h, dtype=BF16), "input_b": randn(r, m, h, dtype=BF16),
                          "num_m_tiles": T(np.array([[m // 128]], np.int32))},
               lambda i: to_bf16(i["input_a"].astype(np.float32) + i["input_b"].astype(np.float32)),
               atol=1e-3, rtol=0.0)


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
        _find_nonzero(4096, 128, 8, 4096, "int32"), _find_nonzero(10240, 128, 4, 10240, "float32"),
        _find_nonzero(4096, 128, 8, 4096, "float32", 0, 4), _find_nonzero(10240, 128, 4, 10240, "int32", 16, 16),
        _indexed_flatten(4096, 2, 128), _indexed_flatten(10240, 17, 128), _indexed_flatten(4096, 3, 128, 5, 1),
        _rotational_topk(2, 8, 5, 4058, 256), _rotational_topk(2, 1, 1, 3168, 7), _rotational_topk(1, 1, 7, 3999, 256),
        _out_proj_tkg(2, 4, 8, 4, 64, 3072, False, False), _out_proj_tkg(2, 4, 8, 4, 64, 3072, True, True),
        _out_proj_tkg(2, 4, 2, 4, 128, 8192, True, False), _out_proj_tkg(2, 128, 8, 3, 128, 3072, True, True),
        _rmsnorm_quant(2, True, "ROW"), _rmsnorm_quant(2, False, "ROW", 0.5), _rmsnorm_quant(160, False, "ROW"),
        _rmsnorm_quant(2, False, "STATIC"), _rmsnorm_quant(160, True, "STATIC"),
        _qkv(1, 1, 4, 16384, 384, "RMS_NORM", nq=1, nkv=1), _qkv(2, 1, 1, 16384, 512, "NO_NORM", "NBSd", nq=2, nkv=1),
        _qkv(1, 1, 5, 8192, 384, "LAYER_NORM", nq=1, nkv=1),
        _qkv(2, 1, 512, 1024, 512, "RMS_NORM", fused_add=True), _qkv(2, 1, 128, 512, 512, "RMS_NORM", fused_add=True,
                                                                     dtype="float32"),
        _mlp(2, 1, 512, 1024, 448, "RMS_NORM", flags="add"), _mlp(2, 1, 1024, 1024, 448, "NO_NORM", flags="add store"),
        _mlp(1, 1, 578, 1408, 352, "LAYER_NORM", "GELU", "add store skip_gate up_b down_b norm_b"),
        _mlp(2, 1, 578, 1408, 352, "RMS_NORM", "GELU_Tanh_Approx", "skip_gate up_b down_b"),
        _mlp(2, 1, 256, 1024, 448, "RMS_NORM", flags="add gate_b"),
        _mlp(2, 1, 1, 8192, 448, "RMS_NORM", flags="gate_col down_col"),
        _mlp(2, 4, 2, 4096, 1024, "LAYER_NORM", flags="gate_col down_col"),
        _mlp(2, 8, 5, 8192, 512, "RMS_NORM", flags="gate_b up_b down_b gate_col down_col"),
        _mlp(1, 4, 2, 4096, 832, "RMS_NORM", flags="add store gate_b up_b down_b gate_col down_col"),
        _mlp(2, 4, 1, 4096, 832, "NO_NORM", flags="skip_gate gate_col"), _mlp(2, 4, 1, 5120, 256, "NO_NORM"),
        _attention_tkg(1, 1, 1, 1, 128, 256, 64, tp_k=True, out_in_sb=True),
        _attention_tkg(2, 1, 1, 1, 128, 256, 64, tp_k=True, out_in_sb=True),
        _attention_tkg(2, 8, 4, 4, 128, 256, 64, tp_k=True, out_in_sb=True, sink=True),
        _attention_tkg(2, 4, 1, 5, 10240, 10240, 128),
        _attention_tkg(2, 4, 1, 5, 1024, 10240, 128, fp8=True),
        _attention_tkg(2, 4, 2, 7, 4096, 16384, 128, tp_k=True, out_in_sb=True, fp8=True),
        _attention_tkg_rope(1, 4, 1, 5, 1024, 10240, 128), _attention_tkg_rope(2, 4, 1, 5, 3072, 10240, 128),
        _attention_tkg_rope(2, 4, 1, 5, 1024, 10240, 128, window=128),
        _attention_tkg_block(2, 4, 1, 5, 8192, 128, 16), _attention_tkg_block(2, 4, 1, 5, 8192, 128, 16, window=128),
        _out_proj_cte(2, 1, 16, 5120, 10, 128, True), _out_proj_cte(2, 1, 1024, 3072, 16, 64, True),
        _out_proj_cte(2, 1, 128, 3072, 16, 10, True),
        _attention_cte(2, 1, 128, 128, 128, 1.0, BF16, True, False, True),
        _attention_cte(2, 3, 1024, 512, 128, 1.0, "float16", False, False, True),
        _attention_cte(2, 3, 2048, 2048, 128, 1.0, "float16", True, True, False),
        _attention_cte(2, 1, 4096, 2048, 64, 0.5, "float32", False, True, False),
        _router_topk(2, 4, 3072, 128, 4, "SOFTMAX", True, False),
        _router_topk(2, 8, 8192, 128, 8, "SIGMOID", True, True, True, indirect=True),
        _router_topk(2, 32, 3072, 128, 4, "SOFTMAX", True, True, x_layout=1),
        _router_topk(2, 48, 3072, 128, 4, "SOFTMAX", True, False, shard_on_tokens=True),
        _attention_bwd(2, 1, 12, 12, 1024, 64, BF16, True), _attention_bwd(2, 1, 16, 16, 1024, 64, BF16, False),
        _attention_bwd(2, 1, 4, 2, 4096, 128, BF16, True),
        _moe_tkg(2, 4, 384, 128, 4, None, "SiLU", True, True, False,
                 expect_error="the test's negative case: H1 = H/128 must divide by the LNC",
                 error_text="Invalid sharding: H1=3 cannot be evenly divided across 2 cores"),
        _moe_tkg(2, 4, 512, 128, 2, 1, "Swish", False, True, True),
        _moe_tkg(2, 4, 3072, 256, 4, None, "SiLU", True, True, False),
        _moe_tkg(2, 4, 3072, 192, 128, 4, "Swish", False, True, True),
        _moe_cte(2, "shard_on_i", 3072, 1024, 8, 512, 1, 2048), _moe_cte(2, "shard_on_i", 1024, 1024, 8, 512, 1, 512),
        _moe_cte(2, "shard_on_i", 3072, 1024, 8, 512, 4, 2048, bias=True),
        _moe_cte(2, "shard_on_block", 3072, 1024, 8, 512, 4, 384, "Swish", True, (7.0, None, 8.0, -9.0)),
        _gen_mask_tkg_hbm(1, 4, 1, 4096, 5), _gen_mask_tkg_hbm(2, 4, 2, 16384, 7),
        _rmsnorm_mx_quantize_tkg(32, 1, 512), _rmsnorm_mx_quantize_tkg(16, 3, 3072, 2880),
        _rmsnorm_mx_quantize_tkg(256, 1, 3072, 2880, residual=True),
        _moe_block_tkg(2, 1, 1, 3072, 576, 16, 4), _moe_block_tkg(2, 1, 4, 3072, 192, 16, 4, 2880),
        _layernorm_tkg(1, 1, 8, 8192), _layernorm_tkg(2, 4, 8, 8192), _layernorm_tkg(2, 128, 1, 8192, True),
        _conv1d(2, 1, 16, 32, 20, 3, 1, 0, 0, 1, False, None, False),
        _conv1d(2, 2, 64, 128, 40, 5, 2, 2, 2, 2, True, "GELU", False),
        _conv1d(2, 1, 64, 128, 150, 5, 2, 4, 6, 2, False, "SiLU", False),
        _conv1d(2, 1, 48, 64, 128, 100, 1, 1, 1, 1, True, None, False),
        _conv1d(2, 1, 128, 256, 200, 5, 2, 2, 2, 1, True, "GELU", True),
        _conv1d(2, 1, 64, 128, 100, 5, 1, 2, 2, 1, True, "GELU", False, BF16),
        _depthwise_conv1d(1, 16, 512, 64, 1, (0, 0)), _depthwise_conv1d(1, 256, 512, 64, 2, (5, 5)),
        _depthwise_conv1d(1, 256, 512, 64, 1, (0, 0), "float32"), _depthwise_conv1d(1, 256, 129, 128, 1, (0, 0)),
        _depthwise_conv1d(2, 256, 512, 64, 1, (5, 5)), _depthwise_conv1d(1, 16, 512, 200, 1, (10, 10)),
        _cross_entropy_forward(8, 512, 32128, BF16, 64, 32128), _cross_entropy_forward(1, 1, 32128, BF16, 1, 32128),
        _dynamic_elementwise_add(128, 512), _dynamic_elementwise_add(1024, 2048),
    ]
