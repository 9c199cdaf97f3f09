// nl_ops_fns.cpp - the nki.language callables that return tiles: nl.add(x, y) & co. (the op codes are
// callable), nl.load / nl.store / nl.copy / nl.load_transpose2d / nl.negative, and the evaluator hooks for
// operators on tiles (`a + b`, `-a`, `a < b`, `a += b` in place, `x[...] = v`).
#include <cstring>

#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {
namespace {
using isa::AluOp;
using isa::DType;
using isa_binding::present;
using namespace nl;

bool is_compare(AluOp op) {
  return op == AluOp::equal || op == AluOp::not_equal || op == AluOp::greater || op == AluOp::greater_equal ||
         op == AluOp::less || op == AluOp::less_equal;
}

// Result dtype of a comparison: bool in legacy kernels, the promoted input dtype in current ones.
std::optional<DType> compare_dtype(Interp& in, const Value& x, const Value& y, std::optional<DType> dt) {
  if (dt) return dt;
  if (legacy(in)) return DType::bool_;
  DType a = x.is(VK::Tensor) ? x.as<TensorObj>()->view.dtype : scalar_dtype(x);
  DType b = y.is(VK::Tensor) ? y.as<TensorObj>()->view.dtype : scalar_dtype(y);
  return promote(a, b);
}

// A comparison's result tile: remembered so that `if a > b:` stays an error (Interp::truthy).
Value compare_result(Interp& in, Value r) {
  if (r.is(VK::Tensor)) in.nki->compare_results.insert(r.as<TensorObj>()->id);
  return r;
}

Value call_binary(Interp& in, AluOp op, const char* fname, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"y", true}, {"dtype"}, {"mask"}};
  Value v[4];
  bind_args(fname, ps, 4, a, v);
  auto dt = dtype_opt(v[2], fname);
  if (!is_compare(op)) return binary(in, op, v[0], v[1], dt, v[3], fname);
  return compare_result(in, binary(in, op, v[0], v[1], compare_dtype(in, v[0], v[1], dt), v[3], fname));
}

// Unary ops through an ALU operator: tensor_scalar(op0=op, operand0=imm) on `engine`.
Value alu_unary(Interp& in, AluOp op, float imm, const Value& x, std::optional<DType> dt, const Value& mask,
                const char* fname, int engine = -1) {
  const TensorObj* t = tile_arg(x, fname, "x");
  if (!buffer_on_chip(t->base().buffer))
    raise("TypeError", std::string(fname) + ": x '" + t->base().name + "' is in " + buffer_str(t->base().buffer) +
                           "; load it into SBUF first (nl.load)");
  bool never = false;
  AxisBounds b = mask_bounds(in, mask, &never, fname, /*hull=*/true);
  if (buffer_on_chip(t->base().buffer)) widen_partition(b);  // compute instruction (not a DMA)
  Value out = new_tile(in, t->view.shape(), dt ? *dt : t->view.dtype);
  if (never) return masked_off(in, out);
  auto rv = [&](const Value& v) { return restrict_value(v, b); };
  call_isa(in, "tensor_scalar",
           {{"dst", rv(out)}, {"data", rv(x)}, {"op0", alu_value(op)}, {"operand0", Value::floating(imm)},
            {"engine", engine < 0 ? Value::unbound() : Value::enum_val(EnumEngine, engine)}});
  return out;
}

Value copy_tile(Interp& in, const Value& x, std::optional<DType> dt, const Value& mask, const char* fname) {
  const TensorObj* t = tile_arg(x, fname, "x");
  bool never = false;
  AxisBounds b = mask_bounds(in, mask, &never, fname, /*hull=*/true);
  if (buffer_on_chip(t->base().buffer)) widen_partition(b);  // compute instruction (not a DMA)
  Value out = new_tile(in, t->view.shape(), dt ? *dt : t->view.dtype);
  if (never) return masked_off(in, out);
  auto rv = [&](const Value& v) { return restrict_value(v, b); };
  if (buffer_on_chip(t->base().buffer))
    call_isa(in, "tensor_copy", {{"dst", rv(out)}, {"src", rv(x)}});
  else
    call_isa(in, "dma_copy", {{"dst", rv(out)}, {"src", rv(x)}});
  return out;
}

Value call_unary(Interp& in, const NkiOpInfo& o, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"mask"}};
  Value v[3];
  const char* fname = o.name.c_str();
  bind_args(fname, ps, 3, a, v);
  auto dt = dtype_opt(v[1], fname);
  if (o.name == "copy" || o.name == "identity") return copy_tile(in, v[0], dt, v[2], fname);
  if (o.name == "rsqrt") {  // GpSimd (nki-language.md §4): rejects PSUM
    const TensorObj* t = tile_arg(v[0], fname, "x");
    if (t->base().buffer == ir::Buffer::psum)
      raise("ValueError", "rsqrt: x '" + t->base().name + "' is in psum; nl.rsqrt runs on GpSimd, which cannot read PSUM");
    return alu_unary(in, AluOp::rsqrt, 0.0f, v[0], dt, v[2], fname, kEngineGpSimd);
  }
  if (o.name == "logical_not") return alu_unary(in, AluOp::logical_not, 0.0f, v[0], dt, v[2], fname);
  if (o.name == "invert") {
    const TensorObj* t = tile_arg(v[0], fname, "x");
    if (isa::is_float(t->view.dtype))
      raise("TypeError", std::string("invert: x must have an integer dtype, got ") +
                             std::string(isa::dtype_name(t->view.dtype)));
    return alu_unary(in, AluOp::invert, 0.0f, v[0], dt, v[2], fname);
  }
  if (o.act) return activation(in, *o.act, v[0], dt, v[2], fname);
  if (o.alu) return alu_unary(in, *o.alu, 0.0f, v[0], dt, v[2], fname);
  raise("TypeError", "nl." + o.name + " cannot be called as a function");
}

Value fn_negative(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"mask"}};
  Value v[3];
  bind_args("negative", ps, 3, a, v);
  return alu_unary(in, AluOp::multiply, -1.0f, v[0], dtype_opt(v[1], "negative"), v[2], "negative");
}

// nl.load(src, dtype=None, mask=None): HBM (or SBUF) -> a new SBUF tile.
Value fn_load(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"src", true}, {"dtype"}, {"mask"}};
  Value v[3];
  bind_args("load", ps, 3, a, v);
  const TensorObj* t = tile_arg(v[0], "load", "src");
  if (t->base().buffer == ir::Buffer::psum)
    raise("ValueError", "load: src '" + t->base().name + "' is in psum; use nl.copy to move PSUM data to SBUF");
  bool never = false;
  AxisBounds b = mask_bounds(in, v[2], &never, "load", /*hull=*/true);  // a fresh tile
  Value out = new_tile(in, t->view.shape(), dtype_opt(v[1], "load").value_or(t->view.dtype));
  if (never) return masked_off(in, out);
  auto rv = [&](const Value& x) { return restrict_value(x, b); };
  call_isa(in, "dma_copy", {{"dst", rv(out)}, {"src", rv(v[0])}});
  return out;
}

// nl.load_transpose2d(src, dtype=None): HBM [K, M] -> SBUF [M, K] (a DMA of the transposed view).
Value fn_load_transpose2d(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"src", true}, {"dtype"}, {"mask"}};
  Value v[3];
  bind_args("load_transpose2d", ps, 3, a, v);
  const TensorObj* t = tile_arg(v[0], "load_transpose2d", "src");
  if (buffer_on_chip(t->base().buffer))
    raise("ValueError", "load_transpose2d: src must be in HBM, but '" + t->base().name + "' is in " +
                            buffer_str(t->base().buffer));
  if (t->view.dims.size() != 2)
    raise("ValueError", "load_transpose2d: src must be 2-dimensional, got shape " + shape_str(t->view.shape()));
  ir::View tv = t->view;
  std::swap(tv.dims[0], tv.dims[1]);
  const isa::DType dt = dtype_opt(v[1], "load_transpose2d").value_or(t->view.dtype);
  Value out = new_tile(in, tv.shape(), dt);
  // "transpose the input tensor on the fly in the DMA engine" (SDK nki_perf_guide.rst, Opt #8): from NC-v3 the DMA
  // engines have a transposer for 2- and 4-byte dtypes (machine.md §11, ARCH3; bit-exact), which a transfer of the
  // transposed view (one element per descriptor) would not use. A cast goes through a staging tile in the source
  // dtype and a tensor_copy; without the transposer, the transfer of the transposed view (docs/compatibility.md).
  const uint32_t size = isa::dtype_size(t->view.dtype);
  if ((size == 2 || size == 4) && isa::available_on(isa::Opcode::dma_transpose, in.nki->nc_version)) {
    if (dt == t->view.dtype) {
      call_isa(in, "dma_transpose", {{"dst", out}, {"src", v[0]}});
    } else {
      Value staged = new_tile(in, tv.shape(), t->view.dtype);
      call_isa(in, "dma_transpose", {{"dst", staged}, {"src", v[0]}});
      call_isa(in, "tensor_copy", {{"dst", out}, {"src", staged}});
    }
  } else {
    call_isa(in, "dma_copy", {{"dst", out}, {"src", view_value(t, tv)}});
  }
  return out;
}

bool same_view(const Value& a, const Value& b) {
  if (!a.is(VK::Tensor) || !b.is(VK::Tensor)) return false;
  const TensorObj *x = a.as<TensorObj>(), *y = b.as<TensorObj>();
  if (x->id != y->id || x->view.offset != y->view.offset || x->view.dtype != y->view.dtype ||
      x->view.dims.size() != y->view.dims.size())
    return false;
  for (size_t i = 0; i < x->view.dims.size(); ++i)
    if (!(x->view.dims[i] == y->view.dims[i])) return false;
  return true;
}

// Whether a compute engine may not access this SBUF view: its partitions start off the quadrant grid the
// engines require (nki-isa.md §1.3; ir/access.cpp), e.g. `t[i, j] = v` for a single partition i = 1.
bool engine_misaligned(const Value& v) {
  const TensorObj* t = v.as<TensorObj>();
  const ir::Tensor& base = t->base();
  if (base.buffer != ir::Buffer::sbuf || base.shape.empty()) return false;
  int64_t f = 1;
  for (size_t i = 1; i < base.shape.size(); ++i) f *= base.shape[i];
  const int64_t parts = t->view.partitions();
  const int64_t start = (base.address ? base.address->first : 0) + (f ? t->view.offset / f : 0);
  const int64_t quantum = parts > 64 ? 128 : parts > 32 ? 64 : 32;
  return start % quantum != 0;
}

// Writes value (a tile or a number) into dst (any buffer), within the box b. An SBUF box that starts off the
// engines' partition grid is written by a DMA (which has no such rule) from a staging tile.
void write_box(Interp& in, const Value& dst, const Value& value, const AxisBounds& b, const char* fname) {
  const TensorObj* d = tile_arg(dst, fname, "dst");
  if (value.is(VK::Tensor)) tile_arg(value, fname, "value");
  auto rv = [&](const Value& x) { return restrict_value(x, b); };
  Value src = value;
  const bool by_dma = buffer_on_chip(d->base().buffer) && engine_misaligned(rv(dst));
  if (!value.is(VK::Tensor)) {
    if (!value.is_number())
      raise("TypeError", std::string(fname) + ": value must be a tile or a number, got '" + type_name(value) + "'");
    if (buffer_on_chip(d->base().buffer) && !by_dma) {
      call_isa(in, "memset", {{"dst", rv(dst)}, {"value", value}});
      return;
    }
    src = new_tile(in, d->view.shape(), d->view.dtype, ir::Buffer::sbuf, "store_value");
    call_isa(in, "memset", {{"dst", src}, {"value", value}});
  }
  const TensorObj* s = src.as<TensorObj>();
  if (s->view.num_elements() != d->view.num_elements())
    raise("ValueError", std::string(fname) + ": dst has shape " + shape_str(d->view.shape()) + " but value has shape " +
                            shape_str(s->view.shape()));
  if (buffer_on_chip(d->base().buffer) && buffer_on_chip(s->base().buffer) && !by_dma) {
    call_isa(in, "tensor_copy", {{"dst", rv(dst)}, {"src", rv(src)}});
    return;
  }
  if (s->base().buffer == ir::Buffer::psum) {  // DMA cannot read PSUM: stage through SBUF
    Value tmp = new_tile(in, s->view.shape(), s->view.dtype, ir::Buffer::sbuf, "psum_copy");
    call_isa(in, "tensor_copy", {{"dst", rv(tmp)}, {"src", rv(src)}});
    src = tmp;
  }
  call_isa(in, "dma_copy", {{"dst", rv(dst)}, {"src", rv(src)}});
}

// Writes value into dst within the mask: one write per box of the mask (exact, as dst keeps its other elements).
void write_into(Interp& in, const Value& dst, const Value& value, const Value& mask, const char* fname) {
  tile_arg(dst, fname, "dst");
  if (same_view(dst, value)) return;
  for (const AxisBounds& b : mask_boxes(in, mask, fname)) write_box(in, dst, value, b, fname);
}

// nl.store(dst, value, mask=None)
Value fn_store(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"value", true}, {"mask"}};
  Value v[3];
  bind_args("store", ps, 3, a, v);
  write_into(in, v[0], v[1], v[2], "store");
  return Value();
}

AluOp op_of(BinKind k, const Value& a, const Value& b) {
  auto is_int = [](const Value& v) {
    return v.is(VK::Tensor) ? !isa::is_float(v.as<TensorObj>()->view.dtype) : v.is_int_like();
  };
  const bool ints = is_int(a) && is_int(b);
  switch (k) {
    case BinKind::Add:
      return AluOp::add;
    case BinKind::Sub:
      return AluOp::subtract;
    case BinKind::Mul:
      return AluOp::multiply;
    case BinKind::Div:
      return AluOp::divide;
    case BinKind::Pow:
      return AluOp::power;
    case BinKind::BitAnd:
      return ints ? AluOp::bitwise_and : AluOp::logical_and;
    case BinKind::BitOr:
      return ints ? AluOp::bitwise_or : AluOp::logical_or;
    case BinKind::BitXor:
      return ints ? AluOp::bitwise_xor : AluOp::logical_xor;
    case BinKind::LShift:
      return AluOp::left_shift;
    case BinKind::RShift:
      return AluOp::right_shift;
    default:
      raise("TypeError", std::string("tensor operator '") + bin_symbol(k) + "' is not supported on tiles");
  }
}

void no_hbm_operand(BinKind k, const Value& v) {
  if (v.is(VK::Tensor) && !buffer_on_chip(v.as<TensorObj>()->base().buffer))
    raise("TypeError", std::string("tensor operator '") + bin_symbol(k) + "' is not supported on " +
                           buffer_str(v.as<TensorObj>()->base().buffer) + " tensor '" +
                           v.as<TensorObj>()->base().name + "'; load it into SBUF first (nl.load)");
}

}  // namespace

// ------------------------------------------------------------------------------------------ hooks

bool nl_operand(const Value& v) { return v.is(VK::Tensor) || is_index(v) || is_pred(v); }

Value nl_call_op(Interp& in, int op, CallArgs& a) {
  const NkiOpInfo& o = nki_ops()[size_t(op)];
  if (o.alu && isa::alu_class(*o.alu) != isa::AluClass::Unary && *o.alu != AluOp::logical_not &&
      *o.alu != AluOp::invert && *o.alu != AluOp::bypass)
    return call_binary(in, *o.alu, o.name.c_str(), a);
  return call_unary(in, o, a);
}

Value nl_binop(Interp& in, BinKind k, const Value& a, const Value& b) {
  if (is_index(a) || is_index(b) || is_pred(a) || is_pred(b)) return index_binop(in, k, a, b);
  no_hbm_operand(k, a);
  no_hbm_operand(k, b);
  return binary(in, op_of(k, a, b), a, b, std::nullopt, Value::unbound(), bin_symbol(k));
}

Value nl_unary(Interp& in, UnaryKind k, const Value& v) {
  if (is_index(v) || is_pred(v)) return index_unary(in, k, v);
  const TensorObj* t = v.as<TensorObj>();
  if (!buffer_on_chip(t->base().buffer))
    raise("TypeError", "unary operators are not supported on " + buffer_str(t->base().buffer) + " tensor '" +
                           t->base().name + "'; load it into SBUF first (nl.load)");
  switch (k) {
    case UnaryKind::Neg:
      return alu_unary(in, AluOp::multiply, -1.0f, v, std::nullopt, Value::unbound(), "-");
    case UnaryKind::Pos:
      return v;
    case UnaryKind::Invert:
      if (t->view.dtype == DType::bool_) return alu_unary(in, AluOp::logical_not, 0.0f, v, std::nullopt, Value::unbound(), "~");
      if (isa::is_float(t->view.dtype))
        raise("TypeError", "operator '~' needs an integer or bool tile, got " + std::string(isa::dtype_name(t->view.dtype)));
      return alu_unary(in, AluOp::invert, 0.0f, v, std::nullopt, Value::unbound(), "~");
    default:
      raise("TypeError", "the value of a tensor is not known at compile time");
  }
}

Value nl_compare(Interp& in, CmpKind k, const Value& a, const Value& b) {
  if (is_index(a) || is_index(b) || is_pred(a) || is_pred(b)) return index_compare(in, k, a, b);
  AluOp op;
  switch (k) {
    case CmpKind::Eq: op = AluOp::equal; break;
    case CmpKind::NotEq: op = AluOp::not_equal; break;
    case CmpKind::Lt: op = AluOp::less; break;
    case CmpKind::LtE: op = AluOp::less_equal; break;
    case CmpKind::Gt: op = AluOp::greater; break;
    default: op = AluOp::greater_equal; break;
  }
  no_hbm_operand(BinKind::Add, a);
  no_hbm_operand(BinKind::Add, b);
  return compare_result(in, binary(in, op, a, b, compare_dtype(in, a, b, std::nullopt), Value::unbound(), "comparison"));
}

Value nl_augmented(Interp& in, BinKind k, const Value& cur, const Value& rhs) {
  const TensorObj* t = cur.as<TensorObj>();
  if (!buffer_on_chip(t->base().buffer))
    raise("TypeError", std::string("tensor operator '") + bin_symbol(k) + "=' is not supported on " +
                           buffer_str(t->base().buffer) + " tensor '" + t->base().name +
                           "'; load it into SBUF first (nl.load)");
  NlState& st = nl_state(in);
  if (k == BinKind::Add && is_masked_off(in, rhs)) return cur;  // acc += nisa.nc_matmul(..., mask=False)
  if (k == BinKind::Add && t->base().buffer == ir::Buffer::psum && rhs.is(VK::Tensor) &&
      rhs.as<TensorObj>()->id == st.pending.tensor && in.kernel.ops.size() == st.pending.end) {
    // psum += nisa.nc_matmul(...): issue the matmul into the accumulator (accumulate inferred per element:
    // the first matmul into a location overwrites it, later ones add).
    in.kernel.ops.resize(st.pending.begin);
    const NlState::PendingMatmul p = st.pending;
    st.pending = {};
    call_isa(in, "nc_matmul", {{"dst", cur}, {"stationary", p.stationary}, {"moving", p.moving},
                               {"perf_mode", p.perf_mode}, {"tile_position", p.tile_position}});
    return cur;
  }
  binary(in, op_of(k, cur, rhs), cur, rhs, std::nullopt, Value::unbound(), bin_symbol(k), &cur);
  return cur;
}

Value nl_assign_name(Interp& in, const Value& old, const std::string& name, Value v) {
  if (!v.is(VK::Other) || !dynamic_cast<const LoopReduceObj*>(v.obj())) return v;
  if (!old.is(VK::Tensor))
    raise("TypeError", "loop_reduce: '" + name + "' must already hold the tile to reduce into (e.g. " + name +
                           " = nl.zeros(...) before the loop), got '" + (old.is_unbound() ? std::string("nothing") : type_name(old)) + "'");
  nl_set_item(in, old, Value::ellipsis(), std::move(v));
  return old;
}

void nl_set_item(Interp& in, const Value& tensor, const Value& key, Value v) {
  // x[...] = <an op whose mask never holds>: the op is not emitted, so nothing is written (not even the
  // subscript's memset of a modulo-allocated PSUM block).
  if (is_masked_off(in, v)) return;
  if (auto* r = v.is(VK::Other) ? dynamic_cast<const LoopReduceObj*>(v.obj()) : nullptr) {  // t[...] = loop_reduce
    Value dst = nki_get_item(in, tensor, key);
    binary(in, r->op, dst, r->x, r->dtype.value_or(dst.as<TensorObj>()->view.dtype), r->mask, "loop_reduce", &dst);
    return;
  }
  const size_t before = in.kernel.ops.size();
  Value dst = nki_get_item(in, tensor, key);  // may memset a modulo-allocated PSUM block (nl_blocks.cpp)
  NlState& st = nl_state(in);
  const TensorObj* d = dst.as<TensorObj>();
  if (d->base().buffer == ir::Buffer::psum && d->view.dtype == DType::float32 && v.is(VK::Tensor) &&
      v.as<TensorObj>()->id == st.pending.tensor && before == st.pending.end &&
      d->view.shape() == v.as<TensorObj>()->view.shape()) {
    // psum[i] = nisa.nc_matmul(...): the matmul writes psum[i] itself (overwriting it, so a memset of the block
    // made by the subscript is dropped too), without a PSUM temporary.
    in.kernel.ops.resize(st.pending.begin);
    const NlState::PendingMatmul p = st.pending;
    st.pending = {};
    call_isa(in, "nc_matmul", {{"dst", dst}, {"stationary", p.stationary}, {"moving", p.moving},
                               {"perf_mode", p.perf_mode}, {"tile_position", p.tile_position},
                               {"accumulate", Value::boolean(false)}});
    return;
  }
  write_into(in, dst, v, Value::unbound(), "assignment");
}

Value run_grid(Interp& in, FunctionObj* fn, CallArgs& a, const std::vector<int64_t>& grid) {
  NlState& st = nl_state(in);
  st.grid = grid;
  st.program_id.assign(grid.size(), 0);
  int64_t total = 1;
  for (auto g : grid) total *= g;
  Value first;
  for (int64_t n = 0; n < total; ++n) {
    int64_t r = n;
    for (size_t d = grid.size(); d-- > 0;) {
      st.program_id[d] = r % grid[d];
      r /= grid[d];
    }
    st.shared_next = 0;
    Value res = in.call_function(fn, a);
    if (n == 0) first = res;
  }
  return first;
}

void install_nl_ops(Interp& in, ModuleObj* nl) {
  auto def = [&](const char* name, BuiltinFn fn) { nl->globals[intern(name)] = in.builtin(name, fn); };
  def("load", fn_load);
  def("store", fn_store);
  def("load_transpose2d", fn_load_transpose2d);
  def("negative", fn_negative);
  install_nl_index(in, nl);
  install_nl_ops_more(in, nl);
  install_nl_constants(in, nl);
  install_nl_grid(in, nl);
}

}  // namespace nkisim::frontend
