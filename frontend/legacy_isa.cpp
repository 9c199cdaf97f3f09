// legacy_isa.cpp - neuronxcc.nki.isa: the legacy instruction signatures (nki-language.md §1.2), which take no
// dst= and return a new tile, with dtype= and mask= keywords: nc_matmul(stationary, moving) -> PSUM fp32,
// nc_transpose(data), tensor_tensor(data1, data2, op), tensor_scalar(data, op0, operand0, ...),
// activation(op, data, bias=None, scale=1.0), tensor_copy(src), tensor_reduce(op, data, axis),
// memset(shape, value, dtype). A call that passes dst= goes to the current binding unchanged.
#include <algorithm>
#include <cmath>

#include "frontend/nl_ops.h"

namespace nkisim::frontend {

Value nl_matmul_tile(Interp& in, const Value& stationary, const Value& moving, const char* fname);  // nl_ops_more
Value nl_pe_transpose(Interp& in, const Value& x, const char* fname);
Value nl_sbuf_copy(Interp& in, const Value& x, isa::DType dt, const char* name);

namespace {
using isa::DType;
using isa_binding::present;
using namespace nl;

struct LegacySig {
  const char* name;
  std::vector<ParamSpec> params;  // legacy parameter order
};

// The legacy parameter lists (SDK@0521004c nki.isa); the current binding receives the same names as keywords.
const LegacySig kSigs[] = {
    {"nc_matmul",
     {{"stationary", true}, {"moving", true}, {"is_stationary_onezero"}, {"is_moving_onezero"}, {"mask"},
      {"is_transpose"}, {"tile_position"}, {"tile_size"}, {"perf_mode"}, {"dtype"}, {"name"}}},
    {"nc_transpose", {{"data", true}, {"mask"}, {"dtype"}, {"engine"}, {"name"}}},
    {"tensor_tensor", {{"data1", true}, {"data2", true}, {"op", true}, {"dtype"}, {"mask"}, {"engine"}, {"name"}}},
    {"tensor_scalar",
     {{"data", true}, {"op0", true}, {"operand0", true}, {"reverse0"}, {"op1"}, {"operand1"}, {"reverse1"},
      {"dtype"}, {"mask"}, {"engine"}, {"name"}}},
    {"activation",
     {{"op", true}, {"data", true}, {"bias"}, {"scale"}, {"reduce_op"}, {"reduce_res"}, {"reduce_cmd"}, {"dtype"},
      {"mask"}, {"name"}}},
    {"activation_reduce",
     {{"op", true}, {"data", true}, {"reduce_op", true}, {"reduce_res", true}, {"bias"}, {"scale"}, {"mask"},
      {"dtype"}, {"name"}}},
    {"tensor_copy", {{"src", true}, {"mask"}, {"dtype"}, {"engine"}, {"name"}}},
    {"scalar_tensor_tensor",
     {{"data", true}, {"op0", true}, {"operand0", true}, {"op1", true}, {"operand1", true}, {"reverse0"},
      {"reverse1"}, {"dtype"}, {"mask"}, {"engine"}, {"name"}}},
    {"tensor_reduce",
     {{"op", true}, {"data", true}, {"axis", true}, {"mask"}, {"dtype"}, {"negate"}, {"keepdims"}, {"name"}}},
    {"memset", {{"shape", true}, {"value", true}, {"dtype", true}, {"mask"}, {"engine"}, {"name"}}},
    {"tensor_tensor_scan",
     {{"data0", true}, {"data1", true}, {"initial", true}, {"op0", true}, {"op1", true}, {"reverse0"},
      {"reverse1"}, {"dtype"}, {"mask"}, {"name"}}},
};

Value legacy_call(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const LegacySig& sig = kSigs[b.data];
  if (has_kw(a, "dst")) return in.call(current_isa_fn(in, sig.name), a);  // current-style call
  std::vector<Value> v(sig.params.size());
  bind_args(sig.name, sig.params.data(), sig.params.size(), a, v.data());
  for (Value& x : v) x = as_op_code(in, x);  // np.add, nl.max, ... given as the op
  auto arg = [&](const char* n) -> Value& {
    for (size_t i = 0; i < sig.params.size(); ++i)
      if (std::string(sig.params[i].name) == n) return v[i];
    raise("TypeError", "internal: no parameter");
  };
  const std::string name = sig.name;
  const char* fname = sig.name;
  auto dt = dtype_opt(arg("dtype"), fname);
  bool never = false;
  if (name == "tensor_reduce" && is_pred(arg("mask")) && arg("op").is(VK::NkiOp) &&
      nki_ops()[arg("op").nki_op_index()].alu && mask_boxes(in, arg("mask"), fname).size() > 1) {
    // A mask that is not a box: reduce a copy holding the op's identity where the mask is false.
    const isa::AluOp op = *nki_ops()[arg("op").nki_op_index()].alu;
    const double identity = op == isa::AluOp::maximum    ? -INFINITY
                            : op == isa::AluOp::minimum  ? INFINITY
                            : op == isa::AluOp::multiply ? 1.0
                                                         : 0.0;
    if (op != isa::AluOp::add && op != isa::AluOp::maximum && op != isa::AluOp::minimum &&
        op != isa::AluOp::multiply)
      raise("NotImplementedError", "tensor_reduce: a mask that does not select a box is supported with nl.add, "
                                   "nl.maximum, nl.minimum and nl.multiply only, got nl." +
                                       nki_ops()[arg("op").nki_op_index()].name);
    tile_arg(arg("data"), fname, "data");
    arg("data") = mask_input(in, arg("data"), arg("mask"), identity, fname).x;
  }
  AxisBounds bounds = mask_bounds(in, arg("mask"), &never, fname, /*hull=*/true);
  widen_partition(bounds);  // the destination is a fresh tile
  // dst: a new tile; the other arguments go to the current binding by name.
  Value dst;
  if (name == "nc_matmul" || name == "nc_transpose") {
    // The legacy mask= of the PE instructions: a compile-time condition (loop variables, program ids) decides
    // whether the instruction exists at all. Which operand axis an index tile of a mask would restrict (the
    // contraction, the stationary's or the moving's free axis) is not documented: such masks are refused.
    for (const auto& b : bounds)
      if (b)
        raise("NotImplementedError",
              std::string(fname) + ": a mask= over index tiles is not supported yet by nki-sim (only a compile-time "
                                   "condition such as (i * 128 < n)); restrict the operands with slices instead");
    if (never) {  // no instruction: `psum += <it>` and `x[...] = <it>` are no-ops (masked_off)
      if (name == "nc_transpose") {
        const TensorObj* d = tile_arg(arg("data"), fname, "data");
        std::vector<int64_t> sh = d->view.shape();
        std::reverse(sh.begin(), sh.end());
        return masked_off(in, new_tile(in, sh, dt.value_or(d->view.dtype), ir::Buffer::psum));
      }
      const TensorObj* s = tile_arg(arg("stationary"), fname, "stationary");
      const TensorObj* m = tile_arg(arg("moving"), fname, "moving");
      const bool transpose = present(arg("is_transpose")) && in.truthy(arg("is_transpose"));
      const int64_t M = s->view.num_elements() / std::max<int64_t>(1, s->view.partitions());
      const int64_t N = m->view.num_elements() / std::max<int64_t>(1, m->view.partitions());
      return masked_off(in, new_tile(in, {M, N}, dt.value_or(transpose ? s->view.dtype : DType::float32),
                                     ir::Buffer::psum));
    }
  }
  if (name == "nc_matmul") {
    // The legacy compiler takes a PSUM operand (e.g. an nc_transpose result) and moves it to SBUF first, as
    // nl.matmul does: nki-samples' flash_attn_bwd, whose hardware tests passed, feeds nc_transpose's PSUM result
    // to nc_matmul as the stationary. The current API refuses it (the operands "must be SBUF tiles").
    for (const char* op : {"stationary", "moving"}) {
      const TensorObj* t = tile_arg(arg(op), fname, op);
      if (t->base().buffer == ir::Buffer::psum) arg(op) = nl_sbuf_copy(in, arg(op), t->view.dtype, op);
    }
    if ( present(arg("tile_position")) || present(arg("perf_mode")) ||
        (present(arg("is_transpose")) && in.truthy(arg("is_transpose")))) {
      // Uncommon options: a fresh PSUM tile and the current binding with every option.
      const TensorObj* s = tile_arg(arg("stationary"), fname, "stationary");
      const TensorObj* m = tile_arg(arg("moving"), fname, "moving");
      // A double-row perf mode contracts the partitions and the second axis of (P, 2, F) operands.
      const bool rows2 = present(arg("perf_mode")) && arg("perf_mode").is(VK::Str) &&
                         str_of(arg("perf_mode")).rfind("double_row", 0) == 0 && s->view.dims.size() == 3;
      const int64_t M = s->view.num_elements() / s->view.dims[0].count / (rows2 ? s->view.dims[1].count : 1);
      const int64_t N = m->view.num_elements() / m->view.dims[0].count / (rows2 ? m->view.dims[1].count : 1);
      // is_transpose passes the stationary's values through: the result has its dtype unless dtype= says.
      const bool transpose = present(arg("is_transpose")) && in.truthy(arg("is_transpose"));
      dst = new_tile(in, {M, N}, dt.value_or(transpose ? s->view.dtype : DType::float32), ir::Buffer::psum);
    } else {
      return nl_matmul_tile(in, arg("stationary"), arg("moving"), fname);
    }
  } else if (name == "nc_transpose") {
    Value r = nl_pe_transpose(in, arg("data"), fname);
    if (dt && *dt != r.as<TensorObj>()->view.dtype) {
      Value c = new_tile(in, r.as<TensorObj>()->view.shape(), *dt, ir::Buffer::psum);
      call_isa(in, "tensor_copy", {{"dst", c}, {"src", r}});
      return c;
    }
    return r;
  } else if (name == "tensor_tensor") {
    // Legacy tracing broadcast free dims of 1 as numpy does: `nisa.tensor_tensor(x[P, F], s[P, 1], op)` reads s
    // through a stride-0 view (AWS's reference double_row_matmul kernel relies on it; the legacy docs point to
    // tensor_scalar as the faster form of such a broadcast). Partition counts must still agree.
    if (tile_arg(arg("data1"), fname, "data1")->view.partitions() ==
        tile_arg(arg("data2"), fname, "data2")->view.partitions())
      legacy_broadcast(in, {&arg("data1"), &arg("data2")}, false);
    const TensorObj* x = tile_arg(arg("data1"), fname, "data1");
    const TensorObj* y = tile_arg(arg("data2"), fname, "data2");
    dst = new_tile(in, x->view.shape(), dt.value_or(promote(x->view.dtype, y->view.dtype)));
  } else if (name == "memset") {
    std::vector<int64_t> shape;
    for (auto& d : in.to_vector(arg("shape"))) shape.push_back(in.to_index(d, "memset() shape"));
    dst = new_tile(in, shape, *dt);
  } else {
    const char* data = name == "tensor_copy" ? "src" : name == "tensor_tensor_scan" ? "data0" : "data";
    const TensorObj* x = tile_arg(arg(data), fname, data);
    std::vector<int64_t> shape = x->view.shape();
    if (name == "tensor_reduce") {
      std::vector<int64_t> ax;
      for (auto& e : arg("axis").is_int_like() ? std::vector<Value>{arg("axis")} : in.to_vector(arg("axis"))) {
        int64_t k = in.to_index(e, "axis");
        ax.push_back(k < 0 ? k + int64_t(shape.size()) : k);
      }
      std::sort(ax.begin(), ax.end());
      const bool keep = present(arg("keepdims")) && in.truthy(arg("keepdims"));
      // An axis out of range keeps the shape: nisa.tensor_reduce, called below, reports it.
      if (!ax.empty() && ax[0] > 0 && ax.back() < int64_t(shape.size())) {
        if (keep)
          for (auto k : ax) shape[size_t(k)] = 1;
        else
          shape.resize(size_t(ax[0]));
      }
    }
    dst = new_tile(in, shape, dt.value_or(x->view.dtype));
  }
  if (never) return masked_off(in, dst);
  // tensor_reduce: the reduced axes of the destination are unrestricted (keepdims) or gone.
  AxisBounds dst_bounds = bounds;
  if (name == "tensor_reduce" && !dst_bounds.empty()) {
    const size_t rank = tile_arg(arg("data"), fname, "data")->view.dims.size();
    for (auto& e : arg("axis").is_int_like() ? std::vector<Value>{arg("axis")} : in.to_vector(arg("axis"))) {
      int64_t k = in.to_index(e, "axis");
      if (k < 0) k += int64_t(rank);
      if (k > 0 && size_t(k) < dst_bounds.size()) dst_bounds[size_t(k)].reset();
    }
  }
  auto restrict = [&](const Value& t, bool is_dst = false) -> Value {
    if (!t.is(VK::Tensor) || bounds.empty()) return t;
    const TensorObj* o = t.as<TensorObj>();
    AxisBounds bb = is_dst ? dst_bounds : bounds;
    if (o->view.num_elements() == (o->view.partitions())) bb.resize(1);  // [P,1]
    return view_value(o, restrict_view(o->view, bb));
  };
  const size_t begin = in.kernel.ops.size();
  forward_with_dst(in, sig.name, restrict(dst, true), sig.params.data(), v.data(), sig.params.size(),
                   [&](const std::string&, const Value& x) { return restrict(x); });
  if (name == "nc_matmul" && !(present(arg("is_transpose")) && in.truthy(arg("is_transpose")))) {
    // A matmul with perf_mode= or tile_position=: remembered like nl_matmul_tile's, so that `psum += <it>`
    // accumulates in PSUM (nl_augmented) instead of adding a PSUM temporary on the Vector Engine.
    NlState& st = nl_state(in);
    st.pending = {};
    st.pending.tensor = dst.as<TensorObj>()->id;
    st.pending.begin = begin;
    st.pending.end = in.kernel.ops.size();
    st.pending.stationary = restrict(arg("stationary"));
    st.pending.moving = restrict(arg("moving"));
    if (present(arg("perf_mode"))) st.pending.perf_mode = arg("perf_mode");
    if (present(arg("tile_position"))) st.pending.tile_position = arg("tile_position");
  }
  return dst;
}

// affine_select(pred, on_true_tile, on_false_value, dtype=None, mask=None): on_true_tile where the affine
// predicate over index tiles holds (e.g. i_q >= i_k), else on_false_value; iota + compare on GpSimd, then a
// predicated copy (nl_mask_fill.cpp).
Value legacy_affine_select(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (has_kw(a, "dst") || (a.npos > 0 && a.pos[0].is(VK::Tensor)))
    return in.call(current_isa_fn(in, "affine_select"), a);  // current-style call
  static const ParamSpec ps[] = {{"pred", true}, {"on_true_tile", true}, {"on_false_value", true}, {"dtype"},
                                 {"mask"}, {"name"}};
  Value v[6];
  bind_args("affine_select", ps, 6, a, v);
  if (!is_pred(v[0]))
    raise("TypeError", "affine_select: pred must be an affine predicate over index tiles such as (i_p >= i_f), got '" +
                           type_name(v[0]) + "'");
  const TensorObj* t = tile_arg(v[1], "affine_select", "on_true_tile");
  if (!v[2].is_number())
    raise("TypeError", "affine_select: on_false_value must be a number, got '" + type_name(v[2]) + "'");
  bool never = false;
  AxisBounds b = mask_bounds(in, v[4], &never, "affine_select", /*hull=*/true);
  widen_partition(b);
  Value src = v[1];
  if (auto dt = dtype_opt(v[3], "affine_select"); dt && *dt != t->view.dtype) {
    src = new_tile(in, t->view.shape(), *dt, ir::Buffer::sbuf, "affine_select_src");
    if (!never) call_isa(in, "tensor_copy", {{"dst", restrict_value(src, b)}, {"src", restrict_value(v[1], b)}});
  }
  if (never) return masked_off(in, new_tile(in, t->view.shape(), src.as<TensorObj>()->view.dtype));
  return select_by_pred(in, src, static_cast<const PredObj*>(v[0].obj()), v[2].num(), b, nullptr,
                        "affine_select");
}

}  // namespace

bool has_kw(const CallArgs& a, const char* name) {
  for (size_t i = 0; i < a.nkw; ++i)
    if (sym_name(a.kw[i].first) == name) return true;
  return false;
}

Value current_isa_fn(Interp& in, const char* name) {
  return in.module_cache[intern("nki.isa")].as<ModuleObj>()->globals[intern(name)];
}

Value forward_with_dst(Interp& in, const char* name, Value dst, const ParamSpec* ps, const Value* v, size_t n,
                       const std::function<Value(const std::string& param, const Value& v)>& arg) {
  std::vector<std::pair<Sym, Value>> kw;
  kw.emplace_back(intern("dst"), dst);
  for (size_t i = 0; i < n; ++i) {
    const std::string pn = ps[i].name;
    if (pn == "dtype" || pn == "mask" || pn == "shape" || v[i].is_unbound()) continue;
    kw.emplace_back(intern(ps[i].name), arg(pn, v[i]));
  }
  CallArgs ca{nullptr, 0, kw.data(), kw.size(), in.current_site()};
  in.call(current_isa_fn(in, name), ca);
  return dst;
}

void install_legacy_isa(Interp& in, ModuleObj* legacy_isa) {
  for (size_t i = 0; i < sizeof(kSigs) / sizeof(kSigs[0]); ++i)
    legacy_isa->globals[intern(kSigs[i].name)] = in.builtin(kSigs[i].name, legacy_call, Value(), int64_t(i));
  legacy_isa->globals[intern("affine_select")] = in.builtin("affine_select", legacy_affine_select);
  install_legacy_isa_tiles(in, legacy_isa);
}

}  // namespace nkisim::frontend
