// legacy_isa_tiles.cpp - more neuronxcc.nki.isa signatures that return a new tile (the caller passes no dst=):
// iota(expr, dtype), max8(src), nc_find_index8(data, vals), nc_match_replace8(data, vals, imm, dst_idx),
// bn_stats(data), bn_aggr(data), dropout(data, prob), reciprocal(data), tensor_partition_reduce(op, data),
// dma_transpose(src, axes), sequence_bounds(segment_ids), local_gather(src_buffer, index, ...),
// tensor_scalar_reduce(data, op0, operand0, reduce_op, ...) and range_select(on_true_tile, ...). Each rule below
// gives the result tile's shape and default dtype; the call then goes to the current binding with dst= the fresh
// tile, so every operand is checked as for a nisa call.
// dtype= picks the result dtype; mask= restricts the computed partitions like the other legacy calls.
#include "frontend/isa_bindings.h"
#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {
using isa::DType;
using isa_binding::present;
using namespace nl;

enum class Rule { same, eight, index8, bn_stats, bn_aggr, partition_reduce, transpose, seq_bounds, gather };

struct TileSig {
  const char* name;
  const char* data;  // the parameter whose tile the result is shaped after
  Rule rule;
};

// The legacy parameters are the current binding's row without dst (isa_bindings.h); dtype= and mask= are added.
const TileSig kSigs[] = {
    {"max8", "src", Rule::eight},
    {"nc_find_index8", "data", Rule::index8},
    {"nc_match_replace8", "data", Rule::same},
    {"bn_stats", "data", Rule::bn_stats},
    {"bn_aggr", "data", Rule::bn_aggr},
    {"dropout", "data", Rule::same},
    {"reciprocal", "data", Rule::same},
    {"tensor_partition_reduce", "data", Rule::partition_reduce},
    {"dma_transpose", "src", Rule::transpose},
    {"sequence_bounds", "segment_ids", Rule::seq_bounds},
    {"local_gather", "src_buffer", Rule::gather},
    {"tensor_scalar_reduce", "data", Rule::same},
    {"range_select", "on_true_tile", Rule::same},
};

int64_t free_elems(const TensorObj* t) {
  const int64_t p = t->view.partitions();
  return t->view.num_elements() / std::max<int64_t>(p, 1);
}

std::vector<int64_t> result_shape(Interp& in, const TileSig& sig, const TensorObj* x, const Value& arg_axes,
                                  const Value& arg_nv, const Value& arg_k, DType* dt) {
  std::vector<int64_t> s = x->view.shape();
  const int64_t P = s.empty() ? 1 : s[0];
  switch (sig.rule) {
    case Rule::same:
      return s;
    case Rule::eight:
      return {P, 8};
    case Rule::index8:
      *dt = DType::uint32;
      return {P, 8};
    case Rule::bn_stats:
      return {P, 6 * ((free_elems(x) + 511) / 512)};
    case Rule::bn_aggr:
      return {P, 2};
    case Rule::partition_reduce:
      s[0] = 1;
      return s;
    case Rule::seq_bounds:
      return {P, 2, free_elems(x)};
    case Rule::gather: {
      const int64_t k = present(arg_k) && !arg_k.is_none() ? in.to_index(arg_k, "num_elem_per_idx") : 1;
      const int64_t nv = present(arg_nv) && !arg_nv.is_none() ? in.to_index(arg_nv, "num_valid_indices") : -1;
      return {P, (nv < 0 ? 1 : nv) * k};  // nv < 0: the binding reports the index tile's count
    }
    case Rule::transpose: {
      std::vector<int64_t> axes;
      if (present(arg_axes) && !arg_axes.is_none())
        for (auto& e : in.to_vector(arg_axes)) axes.push_back(in.to_index(e, "dma_transpose() axes"));
      else
        for (size_t i = s.size(); i-- > 0;) axes.push_back(int64_t(i));
      if (axes.size() != s.size())
        raise("ValueError", "dma_transpose: axes must list every dimension of the " + std::to_string(s.size()) +
                                "-dimensional src");
      std::vector<int64_t> out;
      for (int64_t a : axes) {
        if (a < 0 || a >= int64_t(s.size())) raise("ValueError", "dma_transpose: axes out of range");
        out.push_back(s[size_t(a)]);
      }
      return out;
    }
  }
  return s;
}

Value legacy_tile_call(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const TileSig& sig = kSigs[b.data];
  if (has_kw(a, "dst")) return in.call(current_isa_fn(in, sig.name), a);  // current-style call
  const isa_binding::Binding* row = isa_binding::binding_of(current_isa_fn(in, sig.name));
  if (!row) raise("TypeError", std::string("internal: ") + sig.name + " has no binding row");
  std::vector<ParamSpec> ps(row->specs.begin() + 1, row->specs.end());
  ps.push_back({"dtype"});
  ps.push_back({"mask"});
  std::vector<Value> v(ps.size());
  bind_args(sig.name, ps.data(), ps.size(), a, v.data());
  for (Value& x : v) x = as_op_code(in, x);
  auto arg = [&](const char* n) -> const Value& {
    static const Value unbound = Value::unbound();
    for (size_t i = 0; i < ps.size(); ++i)
      if (std::string(ps[i].name) == n) return v[i];
    return unbound;
  };
  const TensorObj* x = tile_arg(arg(sig.data), sig.name, sig.data);
  DType dt = x->view.dtype;
  const std::vector<int64_t> shape =
      result_shape(in, sig, x, arg("axes"), arg("num_valid_indices"), arg("num_elem_per_idx"), &dt);
  if (auto d = dtype_opt(arg("dtype"), sig.name)) dt = *d;
  bool never = false;
  AxisBounds bounds = mask_bounds(in, arg("mask"), &never, sig.name, /*hull=*/true);
  widen_partition(bounds);
  Value dst = new_tile(in, shape, dt);
  if (never) return masked_off(in, dst);
  // mask=: the inputs are restricted to the box, the result to its partitions (and to the box when it has
  // the input's shape).
  AxisBounds dst_bounds = bounds;
  if (sig.rule != Rule::same && !dst_bounds.empty()) dst_bounds.resize(1);
  forward_with_dst(in, sig.name, restrict_value(dst, dst_bounds), ps.data(), v.data(), ps.size(),
                   [&](const std::string& pn, const Value& x) {
                     return pn == sig.data ? restrict_value(x, bounds) : x;
                   });
  return dst;
}

// iota(expr, dtype, mask=None): the values of an affine index expression over index tiles (nl.arange /
// nl.mgrid) as a tile: channel_multiplier = the partition axis coefficient, one [step, num] pattern entry per
// free axis, offset = the constant.
Value legacy_iota(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (has_kw(a, "dst") || (a.npos > 0 && a.pos[0].is(VK::Tensor)))
    return in.call(current_isa_fn(in, "iota"), a);  // current-style call
  static const ParamSpec ps[] = {{"expr", true}, {"dtype", true}, {"mask"}, {"name"}};
  Value v[4];
  bind_args("iota", ps, 4, a, v);
  if (present(v[2]) && !v[2].is_none()) raise("NotImplementedError", "iota: mask= is not supported yet by nki-sim");
  const DType dt = *dtype_opt(v[1], "iota");
  Value e = mgrid_key(v[0]);
  if (e.is_int_like()) {
    Value t = new_tile(in, {1, 1}, dt, ir::Buffer::sbuf, "iota");
    call_isa(in, "iota", {{"dst", t}, {"pattern", make_list({make_list({Value::integer(0), Value::integer(1)})})},
                          {"offset", Value::integer(e.i())}});
    return t;
  }
  if (!is_index(e))
    raise("TypeError", "iota: expr must be an affine expression of index tiles (nl.arange, nl.mgrid), got '" +
                           type_name(v[0]) + "'");
  const IndexObj* ix = static_cast<const IndexObj*>(e.obj());
  const auto& iters = nl_state(in).iters;
  std::vector<int64_t> extent(size_t(std::max(ix->rank, 2)), 1), coeff(extent.size(), 0);
  for (auto [id, c] : ix->terms) {
    const NlIter& it = iters[size_t(id)];
    if (size_t(it.axis) >= extent.size()) raise("ValueError", "iota: an index tile axis is out of range");
    if (extent[size_t(it.axis)] != 1 && extent[size_t(it.axis)] != it.extent)
      raise("ValueError", "iota: two index tiles of different lengths run along axis " + std::to_string(it.axis));
    extent[size_t(it.axis)] = it.extent;
    coeff[size_t(it.axis)] += c;
  }
  std::vector<Value> pattern;
  for (size_t ax = 1; ax < extent.size(); ++ax)
    pattern.push_back(make_list({Value::integer(coeff[ax]), Value::integer(extent[ax])}));
  Value t = new_tile(in, extent, dt, ir::Buffer::sbuf, "iota");
  call_isa(in, "iota", {{"dst", t},
                        {"pattern", make_list(std::move(pattern))},
                        {"offset", Value::integer(ix->constant)},
                        {"channel_multiplier", Value::integer(coeff[0])}});
  return t;
}

// dma_copy(dst, src, mask=None, dst_rmw_op=None, ...): with dst_rmw_op=np.add / nl.add the DMA adds src to dst
// (read-modify-write), which is dma_compute(dst, [dst, src], add); otherwise the current dma_copy. mask= (index
// tiles over the axes of dst and src, which then have one shape) copies only the elements where it holds: one
// DMA per box of the mask, nothing when it never holds.
Value legacy_dma_copy(Interp& in, const BuiltinObj&, CallArgs& a) {
  std::vector<std::pair<Sym, Value>> kw;
  Value rmw, mask;
  for (size_t i = 0; i < a.nkw; ++i) {
    const std::string_view n = sym_name(a.kw[i].first);
    if (n == "dst_rmw_op") rmw = as_op_code(in, a.kw[i].second);
    else if (n == "mask") mask = a.kw[i].second;
    else kw.push_back(a.kw[i]);
  }
  if (mask.is_none() && rmw.is_none()) {  // the current dma_copy, as called
    CallArgs ca{a.pos, a.npos, kw.data(), kw.size(), a.site};
    return in.call(current_isa_fn(in, "dma_copy"), ca);
  }
  // dst and src by position or keyword; the other keywords go on to the current instruction.
  std::vector<std::pair<Sym, Value>> named, rest;
  for (auto& k : kw) (sym_name(k.first) == "dst" || sym_name(k.first) == "src" ? named : rest).push_back(k);
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}};
  Value v[2];
  CallArgs ba{a.pos, a.npos, named.data(), named.size(), a.site};
  bind_args("dma_copy", ps, 2, ba, v);
  Value oob;  // with dst_rmw_op, oob_mode is the one other keyword
  if (!rmw.is_none()) {
    static const ParamSpec rp[] = {{"oob_mode"}};
    CallArgs rc{nullptr, 0, rest.data(), rest.size(), a.site};
    bind_args("dma_copy", rp, 1, rc, &oob);
  }
  auto copy = [&](const Value& dst, const Value& src) {
    std::vector<std::pair<Sym, Value>> ck;
    if (rmw.is_none()) {
      ck = {{intern("dst"), dst}, {intern("src"), src}};
      ck.insert(ck.end(), rest.begin(), rest.end());
    } else {
      ck = {{intern("dst"), dst}, {intern("srcs"), make_list({dst, src})}, {intern("reduce_op"), rmw}};
      if (present(oob)) ck.push_back({intern("oob_mode"), oob});
    }
    CallArgs ca{nullptr, 0, ck.data(), ck.size(), a.site};
    return in.call(current_isa_fn(in, rmw.is_none() ? "dma_copy" : "dma_compute"), ca);
  };
  if (mask.is_none()) return copy(v[0], v[1]);
  const TensorObj* d = tile_arg(v[0], "dma_copy", "dst");
  const TensorObj* s = tile_arg(v[1], "dma_copy", "src");
  if (d->view.shape() != s->view.shape())
    raise("NotImplementedError", "dma_copy: mask= with dst and src of different shapes (" + shape_str(d->view.shape()) +
                                     ", " + shape_str(s->view.shape()) + ") is not supported yet by nki-sim");
  for (const AxisBounds& box : mask_boxes(in, mask, "dma_copy")) copy(restrict_value(v[0], box), restrict_value(v[1], box));
  return Value();
}

}  // namespace

void install_legacy_isa_tiles(Interp& in, ModuleObj* legacy_isa) {
  for (size_t i = 0; i < sizeof(kSigs) / sizeof(kSigs[0]); ++i)
    legacy_isa->globals[intern(kSigs[i].name)] = in.builtin(kSigs[i].name, legacy_tile_call, Value(), int64_t(i));
  legacy_isa->globals[intern("iota")] = in.builtin("iota", legacy_iota);
  legacy_isa->globals[intern("dma_copy")] = in.builtin("dma_copy", legacy_dma_copy);
}

}  // namespace nkisim::frontend
