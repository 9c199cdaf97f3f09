// nl_ops.cpp - nki.language functions that return tiles (nki-language.md §4) and the operators of the legacy
// dataflow style (§1.2): nl.load/store/copy, elementwise binary ops with scalar and [P,1] broadcasting,
// comparisons, bitwise/logical ops, unary math and activations, `a + b` / `a += b` / `x[...] = v` on tiles,
// and the legacy promotion rules for result dtypes (§6.4). Each op allocates its result tile and emits
// through the nki.isa bindings (nl::call_isa), which check the operands as for a nisa call.
#include <cmath>

#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {

NlState& nl_state(Interp& in) {
  if (!in.nki->nl) in.nki->nl = std::make_shared<NlState>();
  return *in.nki->nl;
}

Value masked_off(Interp& in, Value tile) {
  if (tile.is(VK::Tensor)) nl_state(in).masked_off.insert(tile.as<TensorObj>()->id);
  return tile;
}

bool is_masked_off(Interp& in, const Value& v) {
  if (!v.is(VK::Tensor)) return false;
  const auto& m = nl_state(in).masked_off;
  return !m.empty() && m.count(v.as<TensorObj>()->id);
}

namespace nl {
using isa::DType;
using isa::DTypeKind;
using isa_binding::present;

bool legacy(Interp& in) { return !in.nki->current_api; }

DType scalar_dtype(const Value& v) {
  if (v.is(VK::Bool)) return DType::uint8;
  if (v.is(VK::Int)) return DType::int32;
  return DType::float32;
}

namespace {
int float_rank(DType t) {  // wider = larger; same width but different formats handled in promote
  switch (t) {
    case DType::float8_e4m3:
    case DType::float8_e5m2:
    case DType::float8_e4m3fn:
    case DType::float8_e8m0fnu:
      return 1;
    case DType::float16:
    case DType::bfloat16:
      return 2;
    default:
      return 4;
  }
}
DType signed_of_width(unsigned bytes) {
  return bytes == 1 ? DType::int8 : bytes == 2 ? DType::int16 : DType::int32;
}
}  // namespace

DType promote(DType a, DType b) {
  if (a == b) return a;
  const DTypeKind ka = isa::dtype_kind(a), kb = isa::dtype_kind(b);
  if (ka == DTypeKind::Bool) return b;
  if (kb == DTypeKind::Bool) return a;
  const bool fa = ka == DTypeKind::Float, fb = kb == DTypeKind::Float;
  if (fa && !fb) return a;  // (float, int) -> float
  if (fb && !fa) return b;
  if (fa && fb) {
    const int ra = float_rank(a), rb = float_rank(b);
    if (ra != rb) {
      // fp8 with a 16-bit float: bf16 stays bf16, fp16 stays fp16 (the wider one).
      return ra > rb ? a : b;
    }
    if (ra == 1) return DType::bfloat16;  // e4m3 + e5m2 -> bf16
    return DType::float32;                // fp16 + bf16 -> fp32 (and tf32 + fp32 -> fp32)
  }
  // (int, int)
  const unsigned sa = isa::dtype_size(a), sb = isa::dtype_size(b);
  if (ka == kb) return sa >= sb ? a : b;
  const DType s = ka == DTypeKind::SInt ? a : b, u = ka == DTypeKind::SInt ? b : a;
  const unsigned ss = isa::dtype_size(s), us = isa::dtype_size(u);
  if (ss > us) return s;
  if (us >= 4) return DType::float32;  // int32 + uint32 -> fp32
  return signed_of_width(us * 2);
}

Value view_value(const TensorObj* t, ir::View v) {
  t->check_usable();
  return make<TensorObj>(t->id, std::move(v), t->kernel);
}

Value new_tile(Interp& in, const std::vector<int64_t>& shape, DType dt, ir::Buffer buf, const char* fallback) {
  ir::Tensor t;
  t.shape = shape;
  t.dtype = dt;
  t.buffer = buf;
  t.name = in.nki->hint_call == in.current_site() && in.nki->hint_name ? sym_str(in.nki->hint_name) : fallback;
  if (shape.empty()) raise("ValueError", "a tile must have at least one dimension");
  for (auto d : shape)
    if (d <= 0) raise("ValueError", "tile dimensions must be positive, got " + shape_str(shape));
  if (buffer_on_chip(buf) && shape[0] > 128)
    raise("ValueError",
          "Size of partition dimension " + std::to_string(shape[0]) + " exceeds architecture limitation of 128");
  t.loc = in.loc_of(in.current_site());
  return new_tensor(in, std::move(t));
}

const TensorObj* tile_arg(const Value& v, const char* fname, const char* arg) {
  if (!v.is(VK::Tensor))
    raise("TypeError", std::string(fname) + ": " + arg + " must be a tile, got '" + type_name(v) + "'");
  const TensorObj* t = v.as<TensorObj>();
  if (t->lead)
    raise("NotImplementedError", std::string(fname) + ": " + arg + " '" + t->base().name +
                                     "' has block dimensions before nl.par_dim; index the blocks first (e.g. t[i])");
  return t;
}

Value call_isa(Interp& in, const char* name, std::initializer_list<std::pair<const char*, Value>> kw) {
  static const Sym isa_sym = intern("nki.isa");
  Value mod = in.module_cache[isa_sym];
  Value fn = mod.as<ModuleObj>()->globals[intern(name)];
  std::vector<std::pair<Sym, Value>> args;
  for (auto& [k, v] : kw)
    if (!v.is_unbound()) args.emplace_back(intern(k), v);
  CallArgs a{nullptr, 0, args.data(), args.size(), in.current_site()};
  return in.call(fn, a);
}

std::optional<DType> dtype_opt(const Value& v, const char* fname) {
  if (!present(v)) return std::nullopt;
  if (v.is(VK::DType)) return v.dtype_v();
  if (v.is(VK::Str))
    if (auto d = isa::parse_dtype(str_of(v))) return d;
  raise("TypeError", std::string(fname) + ": dtype must be an NKI dtype such as nl.float32, got '" + type_name(v) + "'");
}

namespace {

const TensorObj* on_chip(const Value& v, const char* fname, const char* arg) {
  const TensorObj* t = tile_arg(v, fname, arg);
  if (!buffer_on_chip(t->base().buffer))
    raise("TypeError", std::string(fname) + ": " + arg + " '" + t->base().name + "' is in " +
                           buffer_str(t->base().buffer) + "; load it into SBUF first (nl.load)");
  return t;
}

int64_t parts(const ir::View& v) { return v.partitions(); }
int64_t free_elems(const ir::View& v) { return parts(v) ? v.num_elements() / parts(v) : 0; }

Value engine_val(int e) { return Value::enum_val(EnumEngine, e); }

}  // namespace

// Legacy kernels broadcast a partition dimension of 1 in elementwise ops (`[128, 512] + [1, 512]`): that operand
// becomes nl.broadcast_to(t, (P, ...its free dims)) first.
Value partition_broadcast(Interp& in, const Value& t, int64_t P) {
  std::vector<Value> dims;
  for (int64_t d : t.as<TensorObj>()->view.shape()) dims.push_back(Value::integer(d));
  dims[0] = Value::integer(P);
  Value args[2] = {t, make_tuple(std::move(dims))};
  CallArgs ca{args, 2, nullptr, 0, in.current_site()};
  return in.call(in.module_cache[intern("nki.language")].as<ModuleObj>()->globals[intern("broadcast_to")], ca);
}

// Legacy kernels broadcast dims of size 1 as numpy does (`[P, 56, 1, 1] == [P, 56, 3, 3]`, `[P, 56, 3, 3]` with
// `[1, 1, 3, 3]`): for tiles of one rank whose dims are each equal or 1, a partition dim of 1 goes through
// nl.broadcast_to (partition_broadcast) and free dims of 1 become stride-0 views of the common shape. A
// per-partition scalar ([P, 1, ...]) stays as it is when keep_columns (binary ops make it a tensor_scalar operand).
void legacy_broadcast(Interp& in, std::initializer_list<Value*> ops, bool keep_columns) {
  std::vector<Value*> ts;
  for (Value* v : ops)
    if (v->is(VK::Tensor)) ts.push_back(v);
  if (ts.size() < 2) return;
  const size_t rank = ts[0]->as<TensorObj>()->view.dims.size();
  std::vector<int64_t> r(rank, 1);
  for (Value* v : ts) {
    const ir::View& w = v->as<TensorObj>()->view;
    if (w.dims.size() != rank || rank < 2) return;  // the shape checks of the op report it
    for (size_t k = 0; k < rank; ++k) {
      const int64_t a = w.dims[k].count;
      if (a != r[k] && a != 1 && r[k] != 1) return;
      r[k] = std::max(r[k], a);
    }
  }
  for (Value* v : ts) {
    if (parts(v->as<TensorObj>()->view) != r[0]) {
      if (!buffer_on_chip(v->as<TensorObj>()->base().buffer)) continue;  // reported by the op
      *v = partition_broadcast(in, *v, r[0]);
    }
    const TensorObj* t = v->as<TensorObj>();
    if (keep_columns && free_elems(t->view) == 1) continue;
    ir::View w = t->view;
    bool changed = false;
    for (size_t k = 1; k < rank; ++k)
      if (w.dims[k].count != r[k]) {
        w.dims[k] = ir::ViewDim{0, r[k]};
        changed = true;
      }
    if (changed) *v = view_value(t, w);
  }
}

Value binary(Interp& in, isa::AluOp op, const Value& x_in, const Value& y_in, std::optional<DType> dt,
             const Value& mask, const char* fname, const Value* dst) {
  Value x = x_in, y = y_in;
  if (x.is(VK::Tensor) && y.is(VK::Tensor) && legacy(in)) {
    const int64_t px = parts(x.as<TensorObj>()->view), py = parts(y.as<TensorObj>()->view);
    if (px == 1 && py > 1 && buffer_on_chip(x.as<TensorObj>()->base().buffer)) x = partition_broadcast(in, x, py);
    if (py == 1 && px > 1 && buffer_on_chip(y.as<TensorObj>()->base().buffer)) y = partition_broadcast(in, y, px);
    legacy_broadcast(in, {&x, &y}, /*keep_columns=*/true);
  }
  const bool xt = x.is(VK::Tensor), yt = y.is(VK::Tensor);
  if (!xt && !yt) raise("TypeError", std::string(fname) + ": at least one operand must be a tile");
  if (xt) on_chip(x, fname, "x");
  if (yt) on_chip(y, fname, "y");
  if (!xt && !x.is_number())
    raise("TypeError", std::string(fname) + ": x must be a tile or a number, got '" + type_name(x) + "'");
  if (!yt && !y.is_number())
    raise("TypeError", std::string(fname) + ": y must be a tile or a number, got '" + type_name(y) + "'");
  const DType dx = xt ? x.as<TensorObj>()->view.dtype : scalar_dtype(x);
  const DType dy = yt ? y.as<TensorObj>()->view.dtype : scalar_dtype(y);
  // Shapes: equal (or equal P and element counts), or one side a [P, 1] column / a scalar.
  const ir::View* vx = xt ? &x.as<TensorObj>()->view : nullptr;
  const ir::View* vy = yt ? &y.as<TensorObj>()->view : nullptr;
  enum { TT, TS, ST } form;
  const ir::View* big;
  if (xt && yt) {
    if (parts(*vx) != parts(*vy))
      raise("ValueError", std::string(fname) + ": operands have shapes " + shape_str(vx->shape()) + " and " +
                              shape_str(vy->shape()) + " (the partition dimensions differ; use nl.broadcast_to)");
    if (free_elems(*vx) == free_elems(*vy)) {
      form = TT;
      // [P] with [P, 1]: the free dims broadcast, partition first: [P, 1] (nki-samples' flash_attn_bwd reduces
      // such a product over axis 1).
      const auto sx = vx->shape(), sy = vy->shape();
      const bool y_pads_x = sy.size() > sx.size() && std::equal(sx.begin(), sx.end(), sy.begin()) &&
                            std::all_of(sy.begin() + long(sx.size()), sy.end(), [](int64_t d) { return d == 1; });
      big = y_pads_x ? vy : vx;
    } else if (free_elems(*vy) == 1) {
      form = TS;
      big = vx;
    } else if (free_elems(*vx) == 1) {
      form = ST;
      big = vy;
    } else {
      raise("ValueError", std::string(fname) + ": operands have shapes " + shape_str(vx->shape()) + " and " +
                              shape_str(vy->shape()) + " which cannot be broadcast together");
    }
  } else {
    form = xt ? TS : ST;
    big = xt ? vx : vy;
  }
  bool never = false;
  AxisBounds bounds = mask_bounds(in, mask, &never, fname, /*hull=*/!dst);  // a fresh tile: see mask_bounds
  if (!dst) widen_partition(bounds);
  Value out;
  if (dst) {
    out = *dst;
  } else {
    DType rd = dt ? *dt : promote(dx, dy);
    out = new_tile(in, big->shape(), rd);
  }
  if (never) return dst ? out : masked_off(in, out);
  auto rv = [&](const Value& v) { return restrict_value(v, bounds); };
  auto column = [&](const Value& v) -> Value {  // a [P,1] operand restricted on the partition axis only
    if (bounds.empty()) return v;
    AxisBounds pb(1);
    pb[0] = bounds[0];
    const TensorObj* t = v.as<TensorObj>();
    return view_value(t, restrict_view(t->view, pb));
  };
  Value dv = rv(out);
  Value eng = op == isa::AluOp::power ? engine_val(kEngineGpSimd) : Value::unbound();
  if (form == TT) {
    Value a = rv(x), b = rv(y);
    if (x.as<TensorObj>()->base().buffer == ir::Buffer::psum &&
        y.as<TensorObj>()->base().buffer == ir::Buffer::psum) {  // tensor_tensor reads at most one PSUM operand
      Value tmp = new_tile(in, vy->shape(), dy, ir::Buffer::sbuf, "psum_copy");
      call_isa(in, "tensor_copy", {{"dst", rv(tmp)}, {"src", b}});
      b = rv(tmp);
    }
    call_isa(in, "tensor_tensor", {{"dst", dv}, {"data1", a}, {"data2", b}, {"op", alu_value(op)}, {"engine", eng}});
  } else {
    const Value& data = form == TS ? x : y;
    const Value& other = form == TS ? y : x;
    Value operand = other.is(VK::Tensor) ? column(other) : Value::floating(other.num());
    call_isa(in, "tensor_scalar",
             {{"dst", dv}, {"data", rv(data)}, {"op0", alu_value(op)}, {"operand0", operand},
              {"reverse0", Value::boolean(form == ST)}, {"engine", eng}});
  }
  return out;
}

Value activation(Interp& in, isa::ActFunc f, const Value& x, std::optional<DType> dt, const Value& mask,
                 const char* fname, const Value& bias, const Value& scale) {
  const TensorObj* t = on_chip(x, fname, "x");
  bool never = false;
  AxisBounds bounds = mask_bounds(in, mask, &never, fname, /*hull=*/true);
  widen_partition(bounds);
  Value out = new_tile(in, t->view.shape(), dt ? *dt : t->view.dtype);
  if (never) return masked_off(in, out);
  auto rv = [&](const Value& v) { return restrict_value(v, bounds); };
  call_isa(in, "activation", {{"dst", rv(out)}, {"op", act_value(f)}, {"data", rv(x)}, {"bias", rv(bias)},
                               {"scale", rv(scale)}});
  return out;
}

Value alu_value(isa::AluOp op) {
  const auto& ops = nki_ops();
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].alu == op) return Value::nki_op(int(i));
  raise("ValueError", "internal: no op code for an ALU operator");
}
Value act_value(isa::ActFunc f) {
  const auto& ops = nki_ops();
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].act == f) return Value::nki_op(int(i));
  raise("ValueError", "internal: no op code for an activation function");
}

}  // namespace nl
}  // namespace nkisim::frontend
