// nl_ops_more.cpp - nki.language functions beyond the elementwise ones (nki-language.md §4): matmul and
// transpose (Tensor Engine, results in PSUM), reductions with axis/keepdims (Vector tensor_reduce), softmax,
// rms_norm, where, broadcast_to, expand_dims, dropout, all, and unary math without a ScalarE function of its
// own (ceil, floor, trunc, cos, tan), composed from instructions.
#include <cmath>

#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {
namespace {
using isa::ActFunc;
using isa::AluOp;
using isa::DType;
using isa_binding::present;
using namespace nl;

int64_t parts(const TensorObj* t) { return t->view.partitions(); }
int64_t free_of(const TensorObj* t) { return t->view.num_elements() / std::max<int64_t>(parts(t), 1); }

const TensorObj* chip(const Value& v, const char* fname, const char* arg) {
  const TensorObj* t = tile_arg(v, fname, arg);
  if (!buffer_on_chip(t->base().buffer))
    raise("TypeError", std::string(fname) + ": " + arg + " '" + t->base().name + "' is in " +
                           buffer_str(t->base().buffer) + "; load it into SBUF first (nl.load)");
  return t;
}

Value sbuf_copy(Interp& in, const Value& x, DType dt, const char* name) {
  const TensorObj* t = x.as<TensorObj>();
  Value out = new_tile(in, t->view.shape(), dt, ir::Buffer::sbuf, name);
  call_isa(in, "tensor_copy", {{"dst", out}, {"src", x}});
  return out;
}

// A view of v restricted to the mask bounds (unchanged when there are none); a [P, 1] column is restricted on
// the partition axis only.
Value masked(const Value& v, const AxisBounds& b) {
  if (!v.is(VK::Tensor) || b.empty()) return v;
  const TensorObj* t = v.as<TensorObj>();
  AxisBounds bb = b;
  if (t->view.dims.size() > 1 && t->view.num_elements() == t->view.dims[0].count) bb.resize(1);
  return view_value(t, restrict_view(t->view, bb));
}

// The bounds of a reduction's result: the reduced axes are unrestricted (keepdims) or gone.
AxisBounds reduced_bounds(AxisBounds b, const std::vector<int64_t>& ax, bool keep) {
  if (b.empty()) return b;
  if (!keep) {
    if (b.size() > size_t(ax[0])) b.resize(size_t(ax[0]));
  } else {
    for (auto x : ax)
      if (size_t(x) < b.size()) b[size_t(x)].reset();
  }
  return b;
}

// mask= of an nl function that does not honour masks yet.
void no_mask(const Value& mask, const char* fname) {
  if (present(mask) && !mask.is_none())
    raise("NotImplementedError", std::string(fname) + ": mask= is not supported yet by nki-sim");
}

// ---- matmul / transpose

// The transpose of a 2-D [P<=128, F<=128] tile into PSUM on the Tensor Engine.
Value pe_transpose(Interp& in, const Value& x, const char* fname) {
  const TensorObj* t = chip(x, fname, "x");
  if (t->view.dims.size() != 2)
    raise("ValueError", std::string(fname) + ": x must be 2-dimensional, got shape " + shape_str(t->view.shape()));
  Value src = x;
  if (t->base().buffer == ir::Buffer::psum) src = sbuf_copy(in, x, t->view.dtype, "transpose_src");
  Value out = new_tile(in, {t->view.dims[1].count, t->view.dims[0].count}, t->view.dtype, ir::Buffer::psum);
  call_isa(in, "nc_transpose", {{"dst", out}, {"data", src}, {"engine", Value::enum_val(EnumEngine, kEngineTensor)}});
  return out;
}

Value fn_transpose(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"mask"}};
  Value v[3];
  bind_args("transpose", ps, 3, a, v);
  no_mask(v[2], "transpose");
  Value r = pe_transpose(in, v[0], "transpose");
  auto dt = dtype_opt(v[1], "transpose");
  if (dt && *dt != r.as<TensorObj>()->view.dtype) {
    Value c = new_tile(in, r.as<TensorObj>()->view.shape(), *dt, ir::Buffer::psum);
    call_isa(in, "tensor_copy", {{"dst", c}, {"src", r}});
    return c;
  }
  return r;
}

// A matmul into a fresh PSUM tile, remembered so that `acc += <it>` re-issues it into acc (nl_augmented).
Value matmul_tile(Interp& in, const Value& stationary, const Value& moving, const char* fname) {
  const TensorObj* s = chip(stationary, fname, "stationary");
  const TensorObj* m = chip(moving, fname, "moving");
  Value out = new_tile(in, {free_of(s), free_of(m)}, DType::float32, ir::Buffer::psum);
  NlState& st = nl_state(in);
  const size_t begin = in.kernel.ops.size();
  call_isa(in, "nc_matmul", {{"dst", out}, {"stationary", stationary}, {"moving", moving}});
  st.pending.tensor = out.as<TensorObj>()->id;
  st.pending.begin = begin;
  st.pending.end = in.kernel.ops.size();
  st.pending.stationary = stationary;
  st.pending.moving = moving;
  return out;
}

// nl.matmul(x, y, transpose_x=False): x.T @ y with transpose_x=True (x is [K, M]), else x @ y (x is [M, K],
// transposed on the Tensor Engine first). The result is a float32 PSUM tile.
Value fn_matmul(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"y", true}, {"transpose_x"}, {"mask"}};
  Value v[4];
  bind_args("matmul", ps, 4, a, v);
  no_mask(v[3], "matmul");
  chip(v[0], "matmul", "x");
  chip(v[1], "matmul", "y");
  Value x = v[0], y = v[1];
  if (y.as<TensorObj>()->base().buffer == ir::Buffer::psum) y = sbuf_copy(in, y, y.as<TensorObj>()->view.dtype, "matmul_y");
  if (!(present(v[2]) && in.truthy(v[2]))) {
    Value xt = pe_transpose(in, x, "matmul");
    x = sbuf_copy(in, xt, x.as<TensorObj>()->view.dtype, "matmul_xT");
  } else if (x.as<TensorObj>()->base().buffer == ir::Buffer::psum) {
    x = sbuf_copy(in, x, x.as<TensorObj>()->view.dtype, "matmul_x");
  }
  return matmul_tile(in, x, y, "matmul");
}

// ---- reductions

std::vector<int64_t> axes_of(Interp& in, const Value& axis, size_t rank, const char* fname, bool any_free = false) {
  std::vector<int64_t> ax;
  if (axis.is(VK::Tuple) || axis.is(VK::List)) {
    for (auto& x : items_of(axis)) ax.push_back(in.to_index(x, "axis"));
  } else {
    ax.push_back(in.to_index(axis, "axis"));
  }
  for (auto& x : ax) {
    if (x < 0) x += int64_t(rank);
    if (x <= 0 || x >= int64_t(rank))
      raise("ValueError", std::string(fname) + ": axis must name free dimensions (1 .. " + std::to_string(rank - 1) +
                              ") of a " + std::to_string(rank) + "-dimensional tile, got " + in.repr(axis));
  }
  std::sort(ax.begin(), ax.end());
  if (std::adjacent_find(ax.begin(), ax.end()) != ax.end())
    raise("ValueError", std::string(fname) + ": repeated axis in " + in.repr(axis));
  for (size_t i = 0; i < ax.size() && !any_free; ++i)
    if (ax[i] != int64_t(rank) - int64_t(ax.size()) + int64_t(i))
      raise("ValueError", std::string(fname) + ": axis must be the trailing free dimensions, got " + in.repr(axis));
  return ax;
}

std::vector<int64_t> reduced_shape(const std::vector<int64_t>& s, const std::vector<int64_t>& ax, bool keep) {
  std::vector<int64_t> r = s;
  if (keep) {
    for (auto x : ax) r[size_t(x)] = 1;
  } else {
    r.resize(size_t(ax[0]));
  }
  return r;
}

Value axis_value(const std::vector<int64_t>& ax) {
  std::vector<Value> items;
  for (auto x : ax) items.push_back(Value::integer(x));
  return make_tuple(std::move(items));
}

// tensor_reduce of x over `ax` into a new tile; with mask bounds only the selected elements are reduced and only
// the selected rows of the result are written.
Value reduce(Interp& in, AluOp op, const Value& x, const std::vector<int64_t>& ax, bool keep, DType dt,
             bool negate = false, const AxisBounds& b = {}) {
  const TensorObj* t = x.as<TensorObj>();
  Value out = new_tile(in, reduced_shape(t->view.shape(), ax, keep), dt);
  call_isa(in, "tensor_reduce", {{"dst", masked(out, reduced_bounds(b, ax, keep))}, {"op", alu_value(op)},
                                 {"data", masked(x, b)}, {"axis", axis_value(ax)},
                                 {"negate", Value::boolean(negate)}, {"keepdims", Value::boolean(keep)}});
  return out;
}

int64_t group_size(const TensorObj* t, const std::vector<int64_t>& ax, const AxisBounds& b) {
  const ir::View v = restrict_view(t->view, b);
  int64_t k = 1;
  for (auto x : ax) k *= v.dims[size_t(x)].count;
  return k;
}

Value reduce_body(Interp& in, const BuiltinObj& b, Value* v, const TensorObj* t, const MaskedInput& mi,
                  const std::vector<int64_t>& ax, bool keep);

// sum / max / min / prod / all / mean / var (x, axis, dtype=None, keepdims=False, mask=None). Axes that are
// not the trailing ones are reduced on a permuted view that puts them last (tile free dims can be walked in any
// order); with keepdims the result is then viewed with the size-1 dims in place.
Value fn_reduce(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"axis", true}, {"dtype"}, {"keepdims"}, {"mask"}};
  Value v[5];
  const char* fname = b.name.c_str();
  bind_args(fname, ps, 5, a, v);
  const TensorObj* t = chip(v[0], fname, "x");
  const size_t rank = t->view.dims.size();
  const auto ax = axes_of(in, v[1], rank, fname, /*any_free=*/true);
  const bool keep = present(v[3]) && in.truthy(v[3]);
  const std::string n = b.name;
  const double identity = n == "max"                 ? -INFINITY
                          : n == "min"               ? INFINITY
                          : n == "prod" || n == "all" ? 1.0
                                                      : 0.0;
  if (n == "var" && is_pred(v[4]) && mask_boxes(in, v[4], fname).size() > 1)
    raise("NotImplementedError", "var: a mask that does not select a box (it relates two index tiles, or uses '|' "
                                 "or '!=') is not supported yet by nki-sim");
  // A mask that is not a box: the masked-out elements become the reduction's identity (nl_mask_fill.cpp).
  MaskedInput mi = mask_input(in, v[0], v[4], identity, fname);
  bool trailing = true;
  for (size_t i = 0; i < ax.size(); ++i) trailing &= ax[i] == int64_t(rank - ax.size() + i);
  if (trailing) return reduce_body(in, b, v, t, mi, ax, keep);
  if (n == "var") raise("ValueError", "var: x must be a 2-dimensional [P, F] tile, got shape " + shape_str(t->view.shape()));
  std::vector<int> order;
  for (size_t k = 0; k < rank; ++k)
    if (!std::count(ax.begin(), ax.end(), int64_t(k))) order.push_back(int(k));
  for (auto k : ax) order.push_back(int(k));
  auto perm = [&](const Value& x) {
    if (!x.is(VK::Tensor)) return x;
    return view_value(x.as<TensorObj>(), ir::permute_view(x.as<TensorObj>()->view, order, true));
  };
  mi.x = perm(mi.x);
  mi.pred = perm(mi.pred);
  if (!mi.bounds.empty()) {
    AxisBounds nb(rank);
    mi.bounds.resize(rank);
    for (size_t k = 0; k < rank; ++k) nb[k] = mi.bounds[size_t(order[k])];
    mi.bounds = nb;
  }
  Value xp = perm(v[0]);
  std::vector<int64_t> tax;
  for (size_t i = 0; i < ax.size(); ++i) tax.push_back(int64_t(rank - ax.size() + i));
  Value r = reduce_body(in, b, v, xp.as<TensorObj>(), mi, tax, false);
  if (!keep) return r;
  const TensorObj* rt = r.as<TensorObj>();
  return view_value(rt, ir::reshape_view(rt->view, reduced_shape(t->view.shape(), ax, true), true));
}

Value reduce_body(Interp& in, const BuiltinObj& b, Value* v, const TensorObj* t, const MaskedInput& mi,
                  const std::vector<int64_t>& ax, bool keep) {
  const char* fname = b.name.c_str();
  const DType dt = dtype_opt(v[2], fname).value_or(t->view.dtype);
  const std::string n = b.name;
  const AxisBounds& mb = mi.bounds;
  const Value& x = mi.x;
  if (mi.never) return masked_off(in, new_tile(in, reduced_shape(t->view.shape(), ax, keep), dt));
  if (n == "sum") return reduce(in, AluOp::add, x, ax, keep, dt, false, mb);
  if (n == "max") return reduce(in, AluOp::maximum, x, ax, keep, dt, false, mb);
  if (n == "min") return reduce(in, AluOp::minimum, x, ax, keep, dt, false, mb);
  if (n == "prod") return reduce(in, AluOp::multiply, x, ax, keep, dt, false, mb);
  if (n == "all")
    return reduce(in, AluOp::logical_and, x, ax, keep, legacy(in) && !present(v[2]) ? DType::bool_ : dt, false, mb);
  const double inv = 1.0 / double(group_size(t, ax, mb));
  if (n == "mean") {  // fp32 intermediates
    const AxisBounds rb = reduced_bounds(mb, ax, keep);
    Value s = reduce(in, AluOp::add, x, ax, keep, DType::float32, false, mb);
    Value out = new_tile(in, s.as<TensorObj>()->view.shape(), dt);
    if (!mi.pred.is_none()) {  // divided by the number of selected elements of each group
      Value cnt = reduce(in, AluOp::add, mi.pred, ax, keep, DType::float32, false, mb);
      call_isa(in, "tensor_tensor", {{"dst", masked(out, rb)}, {"data1", masked(s, rb)},
                                     {"data2", masked(cnt, rb)}, {"op", alu_value(AluOp::divide)}});
      return out;
    }
    call_isa(in, "tensor_scalar", {{"dst", masked(out, rb)}, {"data", masked(s, rb)},
                                   {"op0", alu_value(AluOp::multiply)}, {"operand0", Value::floating(inv)}});
    return out;
  }
  // var: mean((x - mean(x))^2), always with the keepdims shape; fp32 intermediates.
  if (t->view.dims.size() != 2)
    raise("ValueError", "var: x must be a 2-dimensional [P, F] tile, got shape " + shape_str(t->view.shape()));
  const AxisBounds rb = reduced_bounds(mb, ax, true);
  Value s = reduce(in, AluOp::add, v[0], ax, true, DType::float32, false, mb);
  Value negmean = new_tile(in, s.as<TensorObj>()->view.shape(), DType::float32, ir::Buffer::sbuf, "negmean");
  call_isa(in, "tensor_scalar", {{"dst", masked(negmean, rb)}, {"data", masked(s, rb)},
                                 {"op0", alu_value(AluOp::multiply)}, {"operand0", Value::floating(-inv)}});
  Value sq = new_tile(in, t->view.shape(), DType::float32, ir::Buffer::sbuf, "centered_sq");
  call_isa(in, "activation", {{"dst", masked(sq, mb)}, {"op", act_value(ActFunc::square)}, {"data", masked(v[0], mb)},
                              {"bias", masked(negmean, rb)}});
  Value ss = reduce(in, AluOp::add, sq, ax, true, DType::float32, false, mb);
  Value out = new_tile(in, ss.as<TensorObj>()->view.shape(), dt);
  call_isa(in, "tensor_scalar", {{"dst", masked(out, rb)}, {"data", masked(ss, rb)},
                                 {"op0", alu_value(AluOp::multiply)}, {"operand0", Value::floating(inv)}});
  return out;
}

// softmax(x, axis=-1, dtype=None): exp(x - max) / sum, with fp32 intermediates, over the free dims.
Value fn_softmax(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"axis"}, {"dtype"}, {"mask"}};
  Value v[4];
  bind_args("softmax", ps, 4, a, v);
  const TensorObj* t = chip(v[0], "softmax", "x");
  const size_t rank = t->view.dims.size();
  if (rank != 2)
    raise("ValueError", "softmax: x must be a 2-dimensional [P, F] tile, got shape " + shape_str(t->view.shape()));
  axes_of(in, present(v[1]) ? v[1] : Value::integer(-1), rank, "softmax");
  const DType dt = dtype_opt(v[2], "softmax").value_or(t->view.dtype);
  const std::vector<int64_t> ax = {1};
  // A mask that is not a box: the masked-out elements become -inf, so they add exp(-inf) = 0 to the sums.
  const MaskedInput mi = mask_input(in, v[0], v[3], -INFINITY, "softmax");
  const AxisBounds& mb = mi.bounds;
  if (mi.never) return masked_off(in, new_tile(in, t->view.shape(), dt));
  const AxisBounds rb = reduced_bounds(mb, ax, true);
  Value negmax = reduce(in, AluOp::maximum, mi.x, ax, true, DType::float32, true, mb);
  Value e = new_tile(in, t->view.shape(), DType::float32, ir::Buffer::sbuf, "softmax_exp");
  call_isa(in, "activation", {{"dst", masked(e, mb)}, {"op", act_value(ActFunc::exp)}, {"data", masked(mi.x, mb)},
                              {"bias", masked(negmax, rb)}});
  Value s = reduce(in, AluOp::add, e, ax, true, DType::float32, false, mb);
  Value r = new_tile(in, s.as<TensorObj>()->view.shape(), DType::float32, ir::Buffer::sbuf, "softmax_recip");
  call_isa(in, "reciprocal", {{"dst", masked(r, rb)}, {"data", masked(s, rb)}});
  Value out = new_tile(in, t->view.shape(), dt);
  call_isa(in, "tensor_scalar", {{"dst", masked(out, mb)}, {"data", masked(e, mb)},
                                 {"op0", alu_value(AluOp::multiply)}, {"operand0", masked(r, rb)}});
  return out;
}

// rms_norm(x, w, axis, n, epsilon=1e-6, dtype=None, compute_dtype=None):
//   x / sqrt(sum(x^2, axis) / n + epsilon) * w, w of x's shape or a [P, 1] column; fp32 intermediates.
Value fn_rms_norm(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"w", true}, {"axis", true}, {"n", true}, {"epsilon"},
                                 {"dtype"},   {"compute_dtype"}, {"mask"}};
  Value v[8];
  bind_args("rms_norm", ps, 8, a, v);
  no_mask(v[7], "rms_norm");
  const TensorObj* t = chip(v[0], "rms_norm", "x");
  chip(v[1], "rms_norm", "w");
  if (t->view.dims.size() != 2)
    raise("ValueError", "rms_norm: x must be a 2-dimensional [P, F] tile, got shape " + shape_str(t->view.shape()));
  const auto ax = axes_of(in, v[2], 2, "rms_norm");
  const double n = double(in.to_index(v[3], "rms_norm() n"));
  if (n <= 0) raise("ValueError", "rms_norm: n must be positive");
  const double eps = present(v[4]) ? v[4].num() : 1e-6;
  const DType dt = dtype_opt(v[5], "rms_norm").value_or(t->view.dtype);
  Value sq = new_tile(in, t->view.shape(), DType::float32, ir::Buffer::sbuf, "rms_sq");
  call_isa(in, "activation", {{"dst", sq}, {"op", act_value(ActFunc::square)}, {"data", v[0]}});
  Value ss = reduce(in, AluOp::add, sq, ax, true, DType::float32);
  Value ms = new_tile(in, ss.as<TensorObj>()->view.shape(), DType::float32, ir::Buffer::sbuf, "rms_mean");
  call_isa(in, "tensor_scalar",
           {{"dst", ms}, {"data", ss}, {"op0", alu_value(AluOp::multiply)}, {"operand0", Value::floating(1.0 / n)},
            {"op1", alu_value(AluOp::add)}, {"operand1", Value::floating(eps)}});
  Value r = new_tile(in, ms.as<TensorObj>()->view.shape(), DType::float32, ir::Buffer::sbuf, "rms_rsqrt");
  call_isa(in, "activation", {{"dst", r}, {"op", act_value(ActFunc::rsqrt)}, {"data", ms}});
  Value y = binary(in, AluOp::multiply, v[0], r, DType::float32, Value::unbound(), "rms_norm");
  return binary(in, AluOp::multiply, y, v[1], dt, Value::unbound(), "rms_norm");
}

// where(cond, x, y, dtype=None): x where cond != 0, else y (cond is a 0/1 tile).
Value fn_where(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"condition", true}, {"x", true}, {"y", true}, {"dtype"}, {"mask"}};
  Value v[5];
  bind_args("where", ps, 5, a, v);
  chip(v[0], "where", "condition");
  if (legacy(in)) legacy_broadcast(in, {&v[0], &v[1], &v[2]}, /*keep_columns=*/false);
  const TensorObj* c = chip(v[0], "where", "condition");
  const DType xd = v[1].is(VK::Tensor) ? v[1].as<TensorObj>()->view.dtype : scalar_dtype(v[1]);
  const DType yd = v[2].is(VK::Tensor) ? v[2].as<TensorObj>()->view.dtype : scalar_dtype(v[2]);
  const DType dt = dtype_opt(v[3], "where").value_or(promote(xd, yd));
  bool never = false;
  AxisBounds mb = mask_bounds(in, v[4], &never, "where", /*hull=*/true);
  widen_partition(mb);  // the result is a fresh tile
  Value out = new_tile(in, c->view.shape(), dt);
  if (never) return masked_off(in, out);
  if (v[2].is(VK::Tensor))
    call_isa(in, "tensor_copy", {{"dst", masked(out, mb)}, {"src", masked(v[2], mb)}});
  else
    call_isa(in, "memset", {{"dst", masked(out, mb)}, {"value", v[2]}});
  Value pred = v[0];
  if (c->view.dtype != DType::uint8) {  // the predicate of tensor_copy_predicated is an unsigned integer tile
    pred = new_tile(in, c->view.shape(), DType::uint8, ir::Buffer::sbuf, "where_pred");
    call_isa(in, "tensor_scalar", {{"dst", masked(pred, mb)}, {"data", masked(v[0], mb)},
                                   {"op0", alu_value(AluOp::not_equal)}, {"operand0", Value::floating(0.0)}});
  }
  Value src = v[1];
  if (!src.is(VK::Tensor)) {
    src = new_tile(in, c->view.shape(), dt, ir::Buffer::sbuf, "where_x");
    call_isa(in, "memset", {{"dst", masked(src, mb)}, {"value", v[1]}});
  } else if (src.as<TensorObj>()->view.dtype != dt) {
    const TensorObj* x = src.as<TensorObj>();
    Value cast = new_tile(in, x->view.shape(), dt, ir::Buffer::sbuf, "where_x");
    call_isa(in, "tensor_copy", {{"dst", masked(cast, mb)}, {"src", masked(src, mb)}});
    src = cast;
  }
  call_isa(in, "tensor_copy_predicated",
           {{"dst", masked(out, mb)}, {"src", masked(src, mb)}, {"predicate", masked(pred, mb)}});
  return out;
}

// broadcast_to(x, shape, dtype=None): free dims of size 1 are broadcast by the view; a partition dim of 1 by a
// matmul with a ones column on the Tensor Engine (fp32).
Value fn_broadcast_to(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"shape", true}, {"dtype"}};
  Value v[3];
  bind_args("broadcast_to", ps, 3, a, v);
  const TensorObj* t = chip(v[0], "broadcast_to", "x");
  std::vector<int64_t> shape;
  for (auto& d : in.to_vector(v[1])) shape.push_back(in.to_index(d, "broadcast_to() shape"));
  // A tile of lower rank has its missing free dims as size 1 (a [P] reduction result broadcast to [P, F]): the
  // partition dim comes first in both.
  if (shape.size() < t->view.dims.size() || t->view.dims.empty() || shape.size() > ir::kMaxViewDims)
    raise("ValueError", "broadcast_to: shape " + shape_str(shape) + " must have the rank of x " +
                            shape_str(t->view.shape()) + " or more");
  const DType dt = dtype_opt(v[2], "broadcast_to").value_or(t->view.dtype);
  ir::View view = t->view;
  while (view.dims.size() < shape.size()) view.dims.push_back(ir::ViewDim{0, 1});
  for (size_t d = 1; d < shape.size(); ++d) {
    if (view.dims[d].count == shape[d]) continue;
    if (view.dims[d].count != 1)
      raise("ValueError", "broadcast_to: cannot broadcast " + shape_str(t->view.shape()) + " to " + shape_str(shape));
    view.dims[d].stride = 0;
    view.dims[d].count = shape[d];
  }
  Value src = view_value(t, view);
  if (view.dims[0].count == shape[0]) {
    Value out = new_tile(in, shape, dt);
    call_isa(in, "tensor_copy", {{"dst", out}, {"src", src}});
    return out;
  }
  if (view.dims[0].count != 1)
    raise("ValueError", "broadcast_to: cannot broadcast " + shape_str(t->view.shape()) + " to " + shape_str(shape));
  // [1, F] -> [P, F]: ones[1, P].T @ x[1, F] on the Tensor Engine, in pieces of at most 512 columns (the
  // moving free size limit; one fp32 PSUM bank each). The values pass through fp32, exact for every float dtype
  // and for integers of up to 16 bits; a 32-bit integer row is broadcast as its two 16-bit halves.
  // The SDK's fused-Mamba tutorial: "partition-dim broadcast often requires a separate instruction on TensorE".
  // So an fp32 result of one PSUM bank is that instruction's PSUM tile itself (consumers read PSUM), and a
  // contiguous fp32 SBUF row is the moving operand as it is; otherwise copies convert and move to SBUF.
  const bool wide_int = isa::is_integer(t->view.dtype) && isa::dtype_size(t->view.dtype) > 2;
  if (wide_int && dt != t->view.dtype)
    raise("NotImplementedError", "broadcast_to: dtype= with a partition broadcast of a " +
                                     std::string(dtype_str(t->view.dtype)) + " tile is not supported yet by nki-sim");
  int64_t F = view.num_elements();
  const bool direct_row = t->view.dtype == DType::float32 && t->base().buffer == ir::Buffer::sbuf &&
                          view.dims.size() == 2 && view.dims[1].stride == 1;
  Value row = src;
  if (!direct_row) {
    row = new_tile(in, {1, F}, wide_int ? t->view.dtype : DType::float32, ir::Buffer::sbuf, "bcast_row");
    call_isa(in, "tensor_copy", {{"dst", row}, {"src", src}});
  }
  Value flat = row;
  if (wide_int) {  // the uint16 halves, as fp32
    F *= 2;
    flat = new_tile(in, {1, F}, DType::float32, ir::Buffer::sbuf, "bcast_halves");
    const TensorObj* rt = row.as<TensorObj>();
    call_isa(in, "tensor_copy", {{"dst", flat}, {"src", view_value(rt, ir::reinterpret_view(rt->view, DType::uint16))}});
  }
  // The ones row is a constant: made once and reused (the Neuron compiler keeps constants too), unless a
  // dynamic loop began or ended since, when its memset might not have run before this use.
  NlState& nls = nl_state(in);
  auto cached = nls.bcast_ones.find(shape[0]);
  Value ones;
  if (cached != nls.bcast_ones.end() && cached->second.second == nls.control_ops) {
    ones = cached->second.first;
  } else {
    ones = new_tile(in, {1, shape[0]}, DType::float32, ir::Buffer::sbuf, "bcast_ones");
    call_isa(in, "memset", {{"dst", ones}, {"value", Value::floating(1.0)}});
    nls.bcast_ones[shape[0]] = {ones, nls.control_ops};
  }
  if (dt == DType::float32 && !wide_int && shape.size() == 2 && F <= 512) {
    Value acc = new_tile(in, shape, DType::float32, ir::Buffer::psum, "bcast_psum");
    call_isa(in, "nc_matmul", {{"dst", acc}, {"stationary", ones}, {"moving", flat}});
    return acc;
  }
  Value out = new_tile(in, shape, dt);
  const TensorObj* ot = out.as<TensorObj>();
  ir::View out2d = ir::reshape_view(ot->view, {shape[0], view.num_elements()}, true);
  if (wide_int) out2d = ir::reinterpret_view(out2d, DType::uint16);
  for (int64_t c0 = 0; c0 < F; c0 += 512) {
    const int64_t n = std::min<int64_t>(512, F - c0);
    Value acc = new_tile(in, {shape[0], n}, DType::float32, ir::Buffer::psum, "bcast_psum");
    ir::View piece = flat.as<TensorObj>()->view;
    piece.offset += c0 * piece.dims[1].stride;
    piece.dims[1].count = n;
    call_isa(in, "nc_matmul", {{"dst", acc}, {"stationary", ones}, {"moving", view_value(flat.as<TensorObj>(), piece)}});
    ir::View dst_piece = out2d;
    dst_piece.offset += c0 * dst_piece.dims[1].stride;
    dst_piece.dims[1].count = n;
    // The Scalar Engine evacuates the pieces: in AWS's profile of the fused Mamba tutorial at seq_len 8192 (SDK
    // nki/img/mamba_v2_8K_seqlen_zoomed.png) ScalarE runs with each TensorMatrixE burst of a broadcast while
    // VectorE runs only the kernel's own four instructions per state. As an activation copy: NeuronCore-v2 has no
    // tensor_copy on the Scalar Engine (SDK nki.isa tensor_copy); the values are the same (fp32, one rounding).
    call_isa(in, "activation", {{"dst", view_value(ot, dst_piece)}, {"op", act_value(ActFunc::copy)}, {"data", acc}});
  }
  return out;
}

Value fn_expand_dims(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"data", true}, {"axis", true}};
  Value v[2];
  bind_args("expand_dims", ps, 2, a, v);
  const TensorObj* t = tile_arg(v[0], "expand_dims", "data");
  int64_t ax = in.to_index(v[1], "expand_dims() axis");
  if (ax < 0) ax += int64_t(t->view.dims.size()) + 1;
  return view_value(t, ir::expand_dim(t->view, int(ax), buffer_on_chip(t->base().buffer)));
}

// dropout(x, rate, dtype=None): the Vector Engine's dropout instruction.
Value fn_dropout(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"rate", true}, {"dtype"}, {"mask"}};
  Value v[4];
  bind_args("dropout", ps, 4, a, v);
  const TensorObj* t = chip(v[0], "dropout", "x");
  bool never = false;
  AxisBounds mb = mask_bounds(in, v[3], &never, "dropout", /*hull=*/true);
  widen_partition(mb);  // the result is a fresh tile
  Value out = new_tile(in, t->view.shape(), t->view.dtype);
  if (never) return masked_off(in, out);
  call_isa(in, "dropout", {{"dst", masked(out, mb)}, {"data", masked(v[0], mb)}, {"prob", v[1]}});
  auto dt = dtype_opt(v[2], "dropout");
  return dt && *dt != t->view.dtype ? sbuf_copy(in, out, *dt, "dropout_cast") : out;
}

// gather_flattened(data, indices, axis=0, dtype=None): out[p, j] = data[p, :].flatten()[indices[p, j]] (GpSimd
// nc_n_gather, nki-isa.md §6; indices are converted to uint32 when they have another integer dtype).
Value fn_gather_flattened(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"data", true}, {"indices", true}, {"axis"}, {"dtype"}, {"mask"}};
  Value v[5];
  bind_args("gather_flattened", ps, 5, a, v);
  no_mask(v[4], "gather_flattened");
  const TensorObj* d = chip(v[0], "gather_flattened", "data");
  const TensorObj* ix = chip(v[1], "gather_flattened", "indices");
  if (present(v[2]) && in.to_index(v[2], "gather_flattened() axis") != 0)
    raise("NotImplementedError", "gather_flattened: only axis=0 is supported by nki-sim, got axis=" + in.repr(v[2]));
  if (!isa::is_integer(ix->view.dtype))
    raise("TypeError", "gather_flattened: indices must have an integer dtype, got " +
                           std::string(isa::dtype_name(ix->view.dtype)));
  Value data = v[0], idx = v[1];
  if (d->base().buffer == ir::Buffer::psum) data = sbuf_copy(in, data, d->view.dtype, "gather_data");
  if (ix->view.dtype != DType::uint32 || ix->base().buffer == ir::Buffer::psum)
    idx = sbuf_copy(in, idx, DType::uint32, "gather_indices");
  Value out = new_tile(in, ix->view.shape(), d->view.dtype);
  call_isa(in, "nc_n_gather", {{"dst", out}, {"data", data}, {"indices", idx}});
  auto dt = dtype_opt(v[3], "gather_flattened");
  return dt && *dt != d->view.dtype ? sbuf_copy(in, out, *dt, "gather_cast") : out;
}

// device_print(prefix, tensor): a device_print instruction that writes `file:line: prefix: [[...], ...]` when the
// simulator executes it (sim/exec_print.cpp); an HBM tensor is first copied to SBUF by a DMA.
Value fn_device_print(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"prefix", true}, {"x", true}};
  Value v[2];
  bind_args("device_print", ps, 2, a, v);
  if (!v[0].is(VK::Str))
    raise("TypeError", "device_print: prefix must be a string, got '" + type_name(v[0]) + "'");
  const TensorObj* t = tile_arg(v[1], "device_print", "x");
  if (isa::dtype_kind(t->view.dtype) == isa::DTypeKind::Packed)
    raise("TypeError", "device_print: cannot print packed " + std::string(isa::dtype_name(t->view.dtype)) + " data");
  Value x = v[1];
  if (!buffer_on_chip(t->base().buffer)) {
    std::vector<int64_t> shape = t->view.shape();
    if (shape.empty()) shape = {1};
    Value tmp = new_tile(in, shape, t->view.dtype, ir::Buffer::sbuf, "print_copy");
    call_isa(in, "dma_copy", {{"dst", tmp}, {"src", x}});
    x = tmp;
  }
  auto& strings = in.kernel.strings;
  const std::string prefix = str_of(v[0]);
  size_t k = std::find(strings.begin(), strings.end(), prefix) - strings.begin();
  if (k == strings.size()) strings.push_back(prefix);
  isa_binding::OpBuilder b(in, "device_print", isa::Opcode::device_print);
  b.operand(0, x, "x");
  b.params().text = int32_t(k);
  b.emit();
  return Value();
}

// ---- unary math composed from instructions

// round-to-nearest-even of x as fp32 (through an int32 conversion, which rounds to nearest even)
Value rne(Interp& in, const Value& x) {
  const TensorObj* t = x.as<TensorObj>();
  Value i = new_tile(in, t->view.shape(), DType::int32, ir::Buffer::sbuf, "round_i32");
  call_isa(in, "tensor_copy", {{"dst", i}, {"src", x}});
  Value f = new_tile(in, t->view.shape(), DType::float32, ir::Buffer::sbuf, "round_f32");
  call_isa(in, "tensor_copy", {{"dst", f}, {"src", i}});
  return f;
}

// ceil / floor / trunc: r = rne(x); floor = r - (r > x); ceil = r + (r < x); trunc = x >= 0 ? floor : ceil.
Value fn_rounding(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"mask"}};
  Value v[3];
  const char* fname = b.name.c_str();
  bind_args(fname, ps, 3, a, v);
  const TensorObj* t = chip(v[0], fname, "x");
  const DType dt = dtype_opt(v[1], fname).value_or(t->view.dtype);
  const std::string n = b.name;
  Value ax = activation(in, ActFunc::abs, v[0], DType::float32, Value::unbound(), fname);
  Value res;  // fp32, right for |x| < 2^23 (the int32 round trip saturates from 2^31 on)
  if (n == "trunc") {  // |x| floored, with x's sign: sign(x) * floor(|x|)
    Value ra = rne(in, ax);
    Value c = binary(in, AluOp::greater, ra, ax, DType::float32, Value::unbound(), fname);
    Value fl = binary(in, AluOp::subtract, ra, c, DType::float32, Value::unbound(), fname);
    Value s = activation(in, ActFunc::sign, v[0], DType::float32, Value::unbound(), fname);
    res = binary(in, AluOp::multiply, fl, s, DType::float32, v[2], fname);
  } else {
    Value r = rne(in, v[0]);
    const bool fl = n == "floor";
    Value c = binary(in, fl ? AluOp::greater : AluOp::less, r, v[0], DType::float32, Value::unbound(), fname);
    res = binary(in, fl ? AluOp::subtract : AluOp::add, r, c, DType::float32, v[2], fname);
  }
  // fp32 values with |x| >= 2^23 are integers (and infinities): they are their own ceil / floor / trunc.
  bool never = false;
  AxisBounds mb = mask_bounds(in, v[2], &never, fname, /*hull=*/true);
  widen_partition(mb);
  if (never) return masked_off(in, res);
  Value big = new_tile(in, t->view.shape(), DType::uint8, ir::Buffer::sbuf, "round_big");
  call_isa(in, "tensor_scalar", {{"dst", masked(big, mb)}, {"data", masked(ax, mb)},
                                 {"op0", alu_value(AluOp::greater_equal)}, {"operand0", Value::floating(8388608.0)}});
  Value src = t->view.dtype == DType::float32 ? v[0] : sbuf_copy(in, v[0], DType::float32, "round_src");
  call_isa(in, "tensor_copy_predicated",
           {{"dst", masked(res, mb)}, {"src", masked(src, mb)}, {"predicate", masked(big, mb)}});
  if (dt == DType::float32) return res;
  Value out = new_tile(in, t->view.shape(), dt);
  call_isa(in, "tensor_copy", {{"dst", masked(out, mb)}, {"src", masked(res, mb)}});
  return out;
}

// fmod(x, y) = x - trunc(x / y) * y (the sign of x, as np.fmod); mod(x, y) = x - floor(x / y) * y (the sign of
// y, as np.mod). fp32 intermediates; x / y is rounded to fp32 first, so a quotient within an ulp of an integer
// can land on the other side of it (nl.fmod / nl.mod are simulator-only in NKI, nki-language.md §4).
Value fn_fmod(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"y", true}, {"dtype"}, {"mask"}};
  Value v[4];
  const char* fname = b.name.c_str();
  bind_args(fname, ps, 4, a, v);
  const DType dx = v[0].is(VK::Tensor) ? v[0].as<TensorObj>()->view.dtype : scalar_dtype(v[0]);
  const DType dy = v[1].is(VK::Tensor) ? v[1].as<TensorObj>()->view.dtype : scalar_dtype(v[1]);
  const DType dt = dtype_opt(v[2], fname).value_or(promote(dx, dy));
  Value q = binary(in, AluOp::divide, v[0], v[1], DType::float32, v[3], fname);
  Value r = rne(in, q);
  Value w;  // the integral part of q: floor (mod) or trunc (fmod)
  if (b.name == "mod") {
    Value c = binary(in, AluOp::greater, r, q, DType::float32, v[3], fname);
    w = binary(in, AluOp::subtract, r, c, DType::float32, v[3], fname);
  } else {
    Value aq = activation(in, ActFunc::abs, q, DType::float32, v[3], fname);
    Value ra = rne(in, aq);
    Value c = binary(in, AluOp::greater, ra, aq, DType::float32, v[3], fname);
    Value fl = binary(in, AluOp::subtract, ra, c, DType::float32, v[3], fname);
    Value sg = activation(in, ActFunc::sign, q, DType::float32, v[3], fname);
    w = binary(in, AluOp::multiply, fl, sg, DType::float32, v[3], fname);
  }
  Value wy = binary(in, AluOp::multiply, w, v[1], DType::float32, v[3], fname);
  return binary(in, AluOp::subtract, v[0], wy, dt, v[3], fname);
}

// cos(x) = sin(x + pi/2); tan(x) = sin(x) / cos(x) (ScalarE sin with a bias).
Value fn_trig(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"mask"}};
  Value v[3];
  const char* fname = b.name.c_str();
  bind_args(fname, ps, 3, a, v);
  const TensorObj* t = chip(v[0], fname, "x");
  const DType dt = dtype_opt(v[1], fname).value_or(t->view.dtype);
  const Value half_pi = Value::floating(M_PI / 2);
  if (b.name == "cos") return activation(in, ActFunc::sin, v[0], dt, v[2], fname, half_pi);
  Value s = activation(in, ActFunc::sin, v[0], DType::float32, v[2], fname);
  Value c = activation(in, ActFunc::sin, v[0], DType::float32, v[2], fname, half_pi);
  return binary(in, AluOp::divide, s, c, dt, v[2], fname);
}

// nl.loop_reduce(x, op, loop_indices, dtype=None, mask=None): a LoopReduceObj for `t[...] = <it>` (nl_set_item),
// which reduces x into t with op on the Vector Engine, as the legacy docs spell it out (t = tensor_tensor(t, x, op)).
// loop_indices only tells the Neuron compiler which loops the reduction runs over: the loops are unrolled here.
Value fn_loop_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"op", true}, {"loop_indices", true}, {"dtype"}, {"mask"}, {"name"}};
  Value v[6];
  bind_args("loop_reduce", ps, 6, a, v);
  chip(v[0], "loop_reduce", "x");
  const Value op = as_op_code(in, v[1]);
  if (!op.is(VK::NkiOp) || !nki_ops()[op.nki_op_index()].alu)
    raise("TypeError", "loop_reduce: op must be an arithmetic operator such as np.add or np.maximum, got " +
                           in.repr(v[1]));
  if (!v[2].is(VK::List) && !v[2].is(VK::Tuple))
    raise("TypeError", "loop_reduce: loop_indices must be a list of loop variables, got '" + type_name(v[2]) + "'");
  Value res = make<LoopReduceObj>();
  LoopReduceObj* r = res.as<LoopReduceObj>();
  r->x = v[0];
  r->mask = v[4];
  r->op = *nki_ops()[op.nki_op_index()].alu;
  r->dtype = dtype_opt(v[3], "loop_reduce");
  return res;
}

}  // namespace

void install_nl_ops_more(Interp& in, ModuleObj* nl) {
  auto def = [&](const char* name, BuiltinFn fn) { nl->globals[intern(name)] = in.builtin(name, fn); };
  def("matmul", fn_matmul);
  def("transpose", fn_transpose);
  for (const char* r : {"sum", "max", "min", "prod", "all", "mean", "var"}) def(r, fn_reduce);
  def("softmax", fn_softmax);
  def("rms_norm", fn_rms_norm);
  def("where", fn_where);
  def("broadcast_to", fn_broadcast_to);
  def("loop_reduce", fn_loop_reduce);
  def("expand_dims", fn_expand_dims);
  def("dropout", fn_dropout);
  def("gather_flattened", fn_gather_flattened);
  def("device_print", fn_device_print);
  for (const char* r : {"ceil", "floor", "trunc"}) def(r, fn_rounding);
  for (const char* r : {"cos", "tan"}) def(r, fn_trig);
  for (const char* r : {"fmod", "mod"}) def(r, fn_fmod);
}

Value nl_matmul_tile(Interp& in, const Value& stationary, const Value& moving, const char* fname) {
  return matmul_tile(in, stationary, moving, fname);
}
Value nl_pe_transpose(Interp& in, const Value& x, const char* fname) { return pe_transpose(in, x, fname); }
Value nl_sbuf_copy(Interp& in, const Value& x, DType dt, const char* name) { return sbuf_copy(in, x, dt, name); }

}  // namespace nkisim::frontend
