// nl_mask_fill.cpp - masks that are not boxes on reductions and softmax (nki-language.md §1.2): the masked-out
// elements of the input are replaced by the reduction's identity, so the reduction over the mask's bounding box
// sees only the selected elements. The predicate is computed on the GpSimd engine: one iota per affine
// constraint (`sum(coeff * index) + constant >= 0`), compared with 0, multiplied within a conjunction and
// max-ed across the alternatives of `|`; tensor_copy_predicated then copies the selected elements.
#include <cmath>

#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {

using isa::AluOp;
using isa::DType;

Value restricted(const Value& v, const AxisBounds& b) {
  const TensorObj* t = v.as<TensorObj>();
  return nl::view_value(t, restrict_view(t->view, b));
}

// acc = c when acc is None, else acc = acc op c inside `b` (tensor_tensor in place).
void combine(Interp& in, Value& acc, const Value& c, AluOp op, const AxisBounds& b) {
  if (acc.is_none()) {
    acc = c;
    return;
  }
  nl::call_isa(in, "tensor_tensor",
               {{"dst", restricted(acc, b)},
                {"data1", restricted(acc, b)},
                {"data2", restricted(c, b)},
                {"op", nl::alu_value(op)}});
}

// fp32 0/1 tile of `shape` (computed inside the bounds `b`) for one conjunction of constraints.
Value conj_pred(Interp& in, const std::vector<PredObj::Cons>& conj, const std::vector<int64_t>& shape,
                const AxisBounds& b, const char* fname) {
  const auto& iters = nl_state(in).iters;
  const size_t rank = shape.size();
  if (rank < 2 || rank > 5)
    raise("NotImplementedError", std::string(fname) +
                                     ": a mask that does not select a box needs a tile of 2 to 5 "
                                     "dimensions, got shape " +
                                     shape_str(shape));
  std::vector<int64_t> lo(rank, 0), n(shape);
  for (size_t k = 0; k < rank && k < b.size(); ++k)
    if (b[k]) {
      lo[k] = std::max<int64_t>(b[k]->first, 0);
      n[k] = std::min(b[k]->second, shape[k]) - lo[k];
    }
  Value acc;
  for (const PredObj::Cons& c : conj) {
    std::vector<int64_t> co(rank, 0);
    for (auto [id, k] : c.terms) {
      const int ax = iters[size_t(id)].axis;
      if (size_t(ax) >= rank)
        raise("IndexError", std::string(fname) + ": the mask uses tile axis " + std::to_string(ax) +
                                " but the tile has shape " + shape_str(shape));
      co[size_t(ax)] += k;
    }
    int64_t offset = c.constant;
    for (size_t k = 0; k < rank; ++k) offset += co[k] * lo[k];
    std::vector<Value> pattern;
    for (size_t k = 1; k < rank; ++k) pattern.push_back(make_tuple({Value::integer(co[k]), Value::integer(n[k])}));
    Value io = nl::new_tile(in, shape, DType::int32, ir::Buffer::sbuf, "mask_iota");
    nl::call_isa(in, "iota",
                 {{"dst", restricted(io, b)},
                  {"pattern", make_tuple(std::move(pattern))},
                  {"offset", Value::integer(offset)},
                  {"channel_multiplier", Value::integer(co[0])}});
    Value cmp = nl::new_tile(in, shape, DType::float32, ir::Buffer::sbuf, "mask_pred");
    nl::call_isa(in, "tensor_scalar",
                 {{"dst", restricted(cmp, b)},
                  {"data", restricted(io, b)},
                  {"op0", nl::alu_value(AluOp::greater_equal)},
                  {"operand0", Value::floating(0.0)}});
    combine(in, acc, cmp, AluOp::multiply, b);  // AND of 0/1 tiles
  }
  return acc;
}

}  // namespace

// x where the predicate `p` holds, else `fill`: a fresh tile of x's shape and dtype, written inside `b`. *pred
// receives the fp32 0/1 tile of p (None when p is a constant).
Value select_by_pred(Interp& in, const Value& x, const PredObj* p, double fill, const AxisBounds& b, Value* pred,
                     const char* fname) {
  const TensorObj* t = x.as<TensorObj>();
  const std::vector<int64_t> shape = t->view.shape();
  if (isa::is_integer(t->view.dtype) && std::isinf(fill)) fill = fill < 0 ? -2147483648.0 : 2147483647.0;
  Value xp = nl::new_tile(in, shape, t->view.dtype, ir::Buffer::sbuf, "masked_input");
  const bool always = !p->never && p->any.empty() && p->all.empty();
  if (always) {
    nl::call_isa(in, "tensor_copy", {{"dst", restricted(xp, b)}, {"src", restricted(x, b)}});
    return xp;
  }
  nl::call_isa(in, "memset", {{"dst", restricted(xp, b)}, {"value", Value::floating(fill)}});
  if (p->never) return xp;
  const std::vector<std::vector<PredObj::Cons>> dnf =
      p->any.empty() ? std::vector<std::vector<PredObj::Cons>>{p->all} : p->any;
  Value pr;
  for (const auto& conj : dnf) {
    combine(in, pr, conj_pred(in, conj, shape, b, fname), AluOp::maximum, b);  // OR of 0/1 tiles
  }
  if (pred) *pred = pr;
  Value pu8 = nl::new_tile(in, shape, DType::uint8, ir::Buffer::sbuf, "mask_pred_u8");
  nl::call_isa(in, "tensor_scalar",
               {{"dst", restricted(pu8, b)},
                {"data", restricted(pr, b)},
                {"op0", nl::alu_value(AluOp::not_equal)},
                {"operand0", Value::floating(0.0)}});
  nl::call_isa(in, "tensor_copy_predicated",
               {{"dst", restricted(xp, b)}, {"src", restricted(x, b)}, {"predicate", restricted(pu8, b)}});
  return xp;
}

MaskedInput mask_input(Interp& in, const Value& x, const Value& mask, double identity, const char* fname) {
  MaskedInput r;
  r.x = x;
  r.bounds = mask_bounds(in, mask, &r.never, fname, /*hull=*/true);
  widen_partition(r.bounds);  // the results are fresh tiles
  if (r.never || mask_boxes(in, mask, fname).size() <= 1) return r;
  r.x = select_by_pred(in, x, static_cast<const PredObj*>(mask.obj()), identity, r.bounds, &r.pred, fname);
  return r;
}

}  // namespace nkisim::frontend
