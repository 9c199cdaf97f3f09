// nki_tensor.cpp - NkiTensor attributes (shape, dtype, buffer, ...), view methods (reshape, reshape_dim,
// flatten_dims, slice, select, permute, broadcast, expand_dim, squeeze_dim, view/reinterpret_cast, ap,
// get_pattern) and indexing (ints, slices, nl.ds, ...), via ir/view.h.
#include "frontend/isa_builder.h"
#include "frontend/nki.h"
#include "frontend/nki_control.h"
#include "frontend/nki_rearrange.h"
#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {

std::string TensorObj::repr() const {
  const ir::Tensor& t = base();
  return "tensor('" + t.name + "', shape=" + shape_str(view.shape()) + ", dtype=" + std::string(isa::dtype_name(view.dtype)) +
         ", buffer=" + buffer_str(t.buffer) + ")";
}

namespace {
using isa_binding::present;

Value shape_tuple(const std::vector<int64_t>& s) {
  std::vector<Value> items;
  for (auto d : s) items.push_back(Value::integer(d));
  return make_tuple(std::move(items));
}

Value with_view(const TensorObj* t, ir::View v) {
  t->check_usable();
  return make<TensorObj>(t->id, std::move(v), t->kernel);
}

std::vector<int64_t> int_list(Interp& in, const Value& v, const char* what) {
  if (v.is_int_like()) return {v.i()};
  std::vector<int64_t> out;
  for (auto& x : in.to_vector(v)) out.push_back(in.to_index(x, what));
  return out;
}

// f(shape), f(param=shape) or f(d0, d1, ...): a shape given as one sequence or as positional ints (`param`:
// the parameter's name in the NkiTensor API, `shape` of reshape, `dims` of permute).
std::vector<int64_t> shape_args(Interp& in, CallArgs& a, const char* fname, const char* param, const char* what) {
  if (a.nkw) {
    const ParamSpec ps[] = {{param, true}};
    Value v;
    bind_args(fname, ps, 1, a, &v);
    return int_list(in, v, what);
  }
  if (a.npos == 1 && !a.pos[0].is_int_like()) return int_list(in, a.pos[0], what);
  std::vector<int64_t> out;
  for (size_t i = 0; i < a.npos; ++i) out.push_back(in.to_index(a.pos[i], what));
  return out;
}

int norm_dim(int64_t d, size_t nd, const char* fname) {
  if (d < 0) d += int64_t(nd);
  if (d < 0 || d >= int64_t(nd))
    raise("IndexError",
          std::string(fname) + ": dimension out of range for a " + std::to_string(nd) + "-dimensional tensor");
  return int(d);
}

isa::DType dtype_arg(const Value& v, const char* fname) {
  if (v.is(VK::DType)) return v.dtype_v();
  if (v.is(VK::Str))
    if (auto d = isa::parse_dtype(str_of(v))) return *d;
  raise("TypeError", std::string(fname) + ": dtype must be an NKI dtype such as nl.bfloat16, got " +
                         (v.is(VK::Str) ? "'" + str_of(v) + "'" : "'" + type_name(v) + "'"));
}

constexpr const char* kIndirectNoView =
    "an indirect access pattern (.ap() with a dynamic offset) cannot be indexed or viewed further; index the "
    "tensor before .ap()";

[[noreturn]] void not_supported_yet(const std::string& what) {
  raise("NotImplementedError", what + " is not supported yet by nki-sim");
}

// A dynamic offset's tensor: an SBUF tensor of an integer dtype (`fname: what ...` errors).
const TensorObj* offsets_tensor(const Value& off, const char* fname, const char* what, bool reg_ok) {
  if (!off.is(VK::Tensor))
    raise("TypeError", std::string(fname) + ": " + what + " must be an SBUF tensor" +
                           (reg_ok ? ", a VirtualRegister or an int" : "") + ", got '" + type_name(off) + "'");
  const TensorObj* ot = off.as<TensorObj>();
  if (ot->base().buffer != ir::Buffer::sbuf)
    raise("ValueError", std::string(fname) + ": " + what + " must be in SBUF, but '" + ot->base().name + "' is in " +
                            buffer_str(ot->base().buffer));
  if (!isa::is_integer(ot->view.dtype))
    raise("TypeError", std::string(fname) + ": " + what + " must have an integer dtype, got " +
                           std::string(isa::dtype_name(ot->view.dtype)));
  return ot;
}

// A scalar dynamic offset: a VirtualRegister (kind 3) or a 1-element SBUF integer tensor (kind 2), moving the
// view by value x row_stride elements. On an HBM tensor only DMA accepts the result (the DGE applies it); on
// an on-chip tensor every compute instruction does (OpBuilder::operand, docs/dynamic-offsets.md).
std::shared_ptr<IndirectAp> scalar_indirect(const Value& off, int64_t row_stride, const char* fname, const char* what) {
  auto ind = std::make_shared<IndirectAp>();
  ind->row_stride = row_stride;
  if (const VRegObj* r = as_vreg(off)) {
    ind->kind = 3;
    ind->reg = r->id;
    return ind;
  }
  const TensorObj* ot = offsets_tensor(off, fname, what, true);
  if (ot->view.num_elements() != 1)
    raise("ValueError", std::string(fname) + ": " + what + " must have exactly one element, got shape " +
                            shape_str(ot->view.shape()));
  ind->kind = 2;
  ind->offsets = off;
  return ind;
}

// One NkiTensor method: the tensor, whether it is on chip, its rank, the arguments.
struct MethodCtx {
  Interp& in;
  const TensorObj* t;
  bool on_chip;
  size_t nd;
  CallArgs& a;
  int dim(const Value& v, const char* fname) { return norm_dim(in.to_index(v, fname), nd, fname); }
  template <size_t N>
  void bind(const char* fname, const ParamSpec (&ps)[N], Value* out) {
    bind_args(fname, ps, N, a, out);
  }
};

Value m_reshape(MethodCtx& c) {
  return with_view(c.t, ir::reshape_view(c.t->view, shape_args(c.in, c.a, "reshape", "shape", "reshape() shape"), c.on_chip));
}

Value m_reshape_dim(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}, {"shape", true}};
  Value v[2];
  c.bind("reshape_dim", ps, v);
  int d = c.dim(v[0], "reshape_dim");
  return with_view(c.t, ir::reshape_dim(c.t->view, d, int_list(c.in, v[1], "reshape_dim() shape"), c.on_chip));
}

Value m_flatten_dims(MethodCtx& c) {
  static const ParamSpec ps[] = {{"start", true}, {"end", true}};
  Value v[2];
  c.bind("flatten_dims", ps, v);
  return with_view(c.t, ir::flatten_dims(c.t->view, c.dim(v[0], "flatten_dims"), c.dim(v[1], "flatten_dims"), c.on_chip));
}

Value m_slice(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}, {"start", true}, {"end", true}, {"step"}};
  Value v[4];
  c.bind("slice", ps, v);
  int d = c.dim(v[0], "slice");
  int64_t n = c.t->view.dims[d].count;
  int64_t start = v[1].is_none() ? 0 : c.in.to_index(v[1], "slice() start");
  int64_t end = v[2].is_none() ? n : c.in.to_index(v[2], "slice() end");
  if (start < 0) start += n;
  if (end < 0) end += n;
  int64_t step = v[3].is_unbound() || v[3].is_none() ? 1 : c.in.to_index(v[3], "slice() step");
  if (c.on_chip && d == 0 && step != 1)
    raise("ValueError", "the partition dimension cannot be sliced with a step (got step " + std::to_string(step) + ")");
  return with_view(c.t, ir::slice_dim(c.t->view, d, start, end, step));
}

Value m_select(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}, {"index", true}};
  Value v[2];
  c.bind("select", ps, v);
  int d = c.dim(v[0], "select");
  if (c.on_chip && d == 0) raise("ValueError", "select: the partition dimension of an on-chip tensor cannot be selected");
  if (v[1].is(VK::Tensor) || as_vreg(v[1])) {
    // A dynamic index (a 1x1 SBUF tensor or a register): element 0 of the dim, moved at run time by
    // index x the dim's stride; on chip for compute instructions, on HBM for DMA (as .ap(scalar_offset=)).
    const int64_t stride = c.t->view.dims[size_t(d)].stride;
    Value r = with_view(c.t, ir::select_dim(c.t->view, d, 0));
    const_cast<TensorObj*>(r.as<TensorObj>())->indirect = scalar_indirect(v[1], stride, "select", "index");
    return r;
  }
  int64_t i = c.in.to_index(v[1], "select() index");
  if (i < 0) i += c.t->view.dims[d].count;
  return with_view(c.t, ir::select_dim(c.t->view, d, i));
}

Value m_permute(MethodCtx& c) {
  std::vector<int64_t> order = shape_args(c.in, c.a, "permute", "dims", "permute() dims");
  std::vector<int> o;
  for (auto x : order) o.push_back(x < 0 ? int(x + int64_t(c.nd)) : int(x));
  return with_view(c.t, ir::permute_view(c.t->view, o, c.on_chip));
}

Value m_broadcast(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}, {"size", true}};
  Value v[2];
  c.bind("broadcast", ps, v);
  int d = c.dim(v[0], "broadcast");
  return with_view(c.t, ir::broadcast_dim(c.t->view, d, c.in.to_index(v[1], "broadcast() size"), c.on_chip));
}

Value m_expand_dim(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}};
  Value v[1];
  c.bind("expand_dim", ps, v);
  int64_t d = c.in.to_index(v[0], "expand_dim() dim");
  if (d < 0) d += int64_t(c.nd) + 1;
  return with_view(c.t, ir::expand_dim(c.t->view, int(d), c.on_chip));
}

Value m_squeeze_dim(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}};
  Value v[1];
  c.bind("squeeze_dim", ps, v);
  return with_view(c.t, ir::squeeze_dim(c.t->view, c.dim(v[0], "squeeze_dim"), c.on_chip));
}

Value m_view(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dtype", true}};
  Value v[1];
  c.bind("view", ps, v);
  return with_view(c.t, ir::reinterpret_view(c.t->view, dtype_arg(v[0], "view")));
}

// .ap() with scalar_offset (a 1-element SBUF tensor: everything shifts by s * prod(base.shape[indirect_dim+1:]),
// or a compile-time int folded into the offset) or vector_offset (a [P,1] SBUF tensor: partition p uses row
// offs[p] of the base; the partition stride comes from the base shape), nki-language.md §5. Only on HBM
// tensors, and only DMA instructions accept the result (frontend/nki_isa_dma.cpp).
Value ap_dynamic(MethodCtx& c, const Value& scalar, const Value& vector, int64_t indirect_dim,
                 std::vector<ir::ViewDim> pattern, int64_t offset, isa::DType dt) {
  const ir::Tensor& base = c.t->base();
  if (present(scalar) && present(vector)) raise("ValueError", "ap: scalar_offset and vector_offset are mutually exclusive");
  // The dims indirect_dim counts are those of the tensor .ap() is called on when it is the whole storage seen
  // with another shape (t.reshape(...)), else the allocation's (docs/compatibility.md).
  std::vector<int64_t> shape = base.shape;
  if (c.t->view.offset == 0 && c.t->view.dtype == base.dtype && ir::is_contiguous(c.t->view) &&
      c.t->view.num_elements() == base.num_elements())
    shape = c.t->view.shape();
  if (indirect_dim < 0 || indirect_dim >= int64_t(shape.size()))
    raise("ValueError", "ap: indirect_dim " + std::to_string(indirect_dim) + " is out of range for '" + base.name +
                            "' with " + std::to_string(shape.size()) + " dimensions");
  const int64_t base_es = isa::dtype_size(base.dtype), es = isa::dtype_size(dt);
  int64_t stride_bytes = base_es;
  for (size_t k = size_t(indirect_dim) + 1; k < shape.size(); ++k) stride_bytes *= shape[k];
  if (stride_bytes % es != 0)
    raise("ValueError", "ap: a row of '" + base.name + "' is not a whole number of " + std::string(isa::dtype_name(dt)) + " elements");
  const int64_t row_stride = stride_bytes / es;
  if (present(scalar) && scalar.is_int_like()) {  // a compile-time offset
    return with_view(c.t, ir::ap_view(base, c.t->id, dt, pattern, offset + scalar.i() * row_stride));
  }
  if (present(scalar) && buffer_on_chip(base.buffer) && indirect_dim == 0)
    raise("ValueError", "ap: a dynamic scalar_offset on an on-chip tensor cannot move the partition dimension "
                        "(indirect_dim=0); use indirect_dim >= 1 to move along a free dimension of '" + base.name + "'");
  if (present(scalar)) {  // a 1-element SBUF tensor or a register: read when the instruction runs
    Value r = with_view(c.t, ir::ap_view(base, c.t->id, dt, pattern, offset));
    const_cast<TensorObj*>(r.as<TensorObj>())->indirect = scalar_indirect(scalar, row_stride, "ap", "scalar_offset");
    return r;
  }
  const Value& off = vector;
  const char* what = "vector_offset";
  if (buffer_on_chip(base.buffer))
    raise("ValueError", std::string("ap: vector_offset is only supported on HBM tensors, but '") + base.name +
                            "' is in " + buffer_str(base.buffer));
  const TensorObj* ot = offsets_tensor(off, "ap", what, false);
  auto ind = std::make_shared<IndirectAp>();
  ind->offsets = off;
  ind->row_stride = row_stride;
  ir::View view;
  {
    if (indirect_dim != 0) raise("ValueError", "ap: vector_offset requires indirect_dim=0");
    if (pattern.size() < 2)
      raise("ValueError", "ap: with vector_offset the pattern needs a partition pair and at least one free pair");
    const int64_t P = ot->view.partitions();
    // A (128, C) tile with C > 1 holds the row indices column after column (indices.T.flatten()); only
    // dma_transpose takes it (frontend/nki_isa_dma.cpp, nki-isa.md §3.5).
    const bool columns = ot->view.dims.size() == 2 && P == 128 && ot->view.dims[1].count > 1 &&
                         pattern[0].count <= ot->view.num_elements();
    if (!columns && (ot->view.num_elements() != P || pattern[0].count != P))
      raise("ValueError", "ap: vector_offset must have shape (" + std::to_string(pattern[0].count) +
                              ", 1) (one row index per partition of the pattern), got " + shape_str(ot->view.shape()));
    ind->kind = 1;
    pattern[0].stride = 0;  // partition p's row comes from offs[p] at run time
    view = ir::ap_view(base, c.t->id, dt, pattern, offset);
  }
  Value r = with_view(c.t, std::move(view));
  const_cast<TensorObj*>(r.as<TensorObj>())->indirect = std::move(ind);
  return r;
}

// ap(pattern, offset=None, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None): addresses the
// storage directly (not composable with the view it is called on); offset=None means 0.
Value m_ap(MethodCtx& c) {
  static const ParamSpec ps[] = {{"pattern", true}, {"offset"},       {"scalar_offset"},
                                 {"vector_offset"}, {"indirect_dim"}, {"dtype"}};
  Value v[6];
  c.bind("ap", ps, v);
  const int64_t indirect_dim = present(v[4]) ? c.in.to_index(v[4], "ap() indirect_dim") : 0;
  if (indirect_dim != 0 && !present(v[2]) && !present(v[3]))
    raise("ValueError", "ap: indirect_dim is only meaningful with scalar_offset or vector_offset");
  std::vector<ir::ViewDim> pattern;
  if (!v[0].is(VK::List) && !v[0].is(VK::Tuple))
    raise("TypeError", "ap: pattern must be a list of [stride, count] pairs, got '" + type_name(v[0]) + "'");
  for (auto& pair : items_of(v[0])) {
    if ((!pair.is(VK::List) && !pair.is(VK::Tuple)) || items_of(pair).size() != 2)
      raise("TypeError", "ap: each pattern entry must be a [stride, count] pair, got " + c.in.repr(pair));
    pattern.push_back(ir::ViewDim{c.in.to_index(items_of(pair)[0], "ap() strides"),
                                  c.in.to_index(items_of(pair)[1], "ap() counts")});
  }
  isa::DType dt = present(v[5]) ? dtype_arg(v[5], "ap") : c.t->view.dtype;
  // The strides address the storage; the offset counts from the storage offset of the view .ap() is called on
  // (offset=None: that offset itself), as the reference documents NkiTensor.ap.
  const ir::View& cv = c.t->view;
  const int64_t view_es = isa::dtype_size(cv.dtype), es = isa::dtype_size(dt);
  if (cv.offset * view_es % es != 0)
    raise("ValueError", "ap: the view of '" + c.t->base().name + "' starts at element " + std::to_string(cv.offset) +
                            " of " + std::string(isa::dtype_name(cv.dtype)) + ", not a whole number of " +
                            std::string(isa::dtype_name(dt)) +
                            " elements");
  int64_t offset = 0;
  if (__builtin_mul_overflow(cv.offset, view_es, &offset) ||
      __builtin_add_overflow(offset / es, present(v[1]) ? c.in.to_index(v[1], "ap() offset") : 0, &offset))
    raise("ValueError", "ap: the offset overflows: the view of '" + c.t->base().name + "' starts at element " +
                            std::to_string(cv.offset) + " and offset= adds " + c.in.repr(v[1]));
  if (present(v[2]) || present(v[3])) return ap_dynamic(c, v[2], v[3], indirect_dim, pattern, offset, dt);
  // On chip, a partition stride may also be the view's own elements per partition (what a helper that derives
  // strides from the view's shape passes): the partition dim has no stride in hardware.
  int64_t view_partition_stride = 0;
  if (c.on_chip) {
    int64_t bytes = view_es;
    bool ok = true;
    for (size_t k = 1; k < cv.dims.size() && ok; ++k) ok = !__builtin_mul_overflow(bytes, cv.dims[k].count, &bytes);
    if (ok && bytes % es == 0) view_partition_stride = bytes / es;  // (a broadcast view past 2^63 bytes has none)
  }
  std::string oob;
  Value r = with_view(c.t, ir::ap_view(c.t->base(), c.t->id, dt, pattern, offset, &oob, view_partition_stride));
  const_cast<TensorObj*>(r.as<TensorObj>())->deferred_error = std::move(oob);
  return r;
}

Value m_get_pattern(MethodCtx& c) {
  if (c.a.npos || c.a.nkw) raise("TypeError", "get_pattern() takes no arguments");
  std::vector<Value> pairs;
  for (auto& d : c.t->view.dims) pairs.push_back(make_list({Value::integer(d.stride), Value::integer(d.count)}));
  return make_list(std::move(pairs));
}

Value m_is_contiguous(MethodCtx& c) { return Value::boolean(ir::is_contiguous(c.t->view)); }
Value m_is_indirect(MethodCtx& c) { return Value::boolean(c.t->indirect != nullptr); }
// vector_select(dim, offs): partition row p of the result is row offs[p] of dim 0 (HBM only, dim 0 only; offs a
// [P,1] SBUF integer tile); the view-level .ap(vector_offset=). Only DMA instructions accept the result.
Value m_vector_select(MethodCtx& c) {
  static const ParamSpec ps[] = {{"dim", true}, {"offsets", true}};
  Value v[2];
  c.bind("vector_select", ps, v);
  const int d = c.dim(v[0], "vector_select");
  if (c.on_chip)
    raise("ValueError", "vector_select: only HBM tensors can be gathered by rows, but '" + c.t->base().name +
                            "' is in " + buffer_str(c.t->base().buffer));
  if (d != 0) raise("ValueError", "vector_select: only dimension 0 can be selected per partition, got dim " + std::to_string(d));
  if (c.nd < 2) raise("ValueError", "vector_select: the tensor needs at least 2 dimensions (rows and their elements)");
  const TensorObj* ot = offsets_tensor(v[1], "vector_select", "offsets", false);
  const int64_t P = ot->view.partitions();
  if (ot->view.num_elements() != P)
    raise("ValueError", "vector_select: offsets must have shape (P, 1) (one row index per partition), got " +
                            shape_str(ot->view.shape()));
  auto ind = std::make_shared<IndirectAp>();
  ind->kind = 1;
  ind->offsets = v[1];
  ind->row_stride = c.t->view.dims[0].stride;
  ir::View view = c.t->view;
  view.dims[0] = ir::ViewDim{0, P};  // partition p's row comes from offs[p] at run time
  Value r = with_view(c.t, std::move(view));
  const_cast<TensorObj*>(r.as<TensorObj>())->indirect = std::move(ind);
  return r;
}

Value m_indirect(MethodCtx&) { not_supported_yet("indirect() (trn3 tensor indirection)"); }

Value m_rearrange(MethodCtx& c) {
  static const ParamSpec ps[] = {{"src", true}, {"dst", true}, {"sizes"}};
  Value v[3];
  c.bind("rearrange", ps, v);
  return with_view(c.t, rearrange_view(c.in, c.t->view, c.on_chip, v[0], v[1], v[2]));
}

// t.broadcast_to(shape) (legacy tiles): nl.broadcast_to(t, shape), a new tile.
Value m_broadcast_to(MethodCtx& c) {
  static const ParamSpec ps[] = {{"shape", true}};
  Value v[1];
  c.bind("broadcast_to", ps, v);
  Value args[2] = {with_view(c.t, c.t->view), v[0]};
  CallArgs ca{args, 2, nullptr, 0, c.a.site};
  return c.in.call(c.in.module_cache[intern("nki.language")].as<ModuleObj>()->globals[intern("broadcast_to")], ca);
}

struct TensorMethod {
  const char* name;
  Value (*fn)(MethodCtx&);
};
constexpr TensorMethod kMethods[] = {
    {"reshape", m_reshape},         {"reshape_dim", m_reshape_dim},     {"flatten_dims", m_flatten_dims},
    {"slice", m_slice},             {"select", m_select},               {"permute", m_permute},
    {"broadcast", m_broadcast},     {"expand_dim", m_expand_dim},       {"squeeze_dim", m_squeeze_dim},
    {"view", m_view},               {"reinterpret_cast", m_view},       {"ap", m_ap},
    {"get_pattern", m_get_pattern}, {"is_contiguous", m_is_contiguous}, {"is_indirect", m_is_indirect},
    {"vector_select", m_vector_select}, {"indirect", m_indirect},       {"rearrange", m_rearrange},
    {"broadcast_to", m_broadcast_to},
};

Value tensor_method(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const TensorObj* t = b.self.as<TensorObj>();
  MethodCtx c{in, t, buffer_on_chip(t->base().buffer), t->view.dims.size(), a};
  if (t->indirect && kMethods[b.data].fn != m_is_indirect && kMethods[b.data].fn != m_get_pattern)
    raise("ValueError", kIndirectNoView);
  if (t->lead)  // legacy nl.par_dim block tensor (nl_blocks.cpp)
    raise("NotImplementedError", std::string(kMethods[b.data].name) + "(): tensor '" + t->base().name +
                                     "' has block dimensions before nl.par_dim; index the blocks first (e.g. t[i])");
  return kMethods[b.data].fn(c);
}

}  // namespace

bool nki_attr(Interp& in, const Value& obj, Sym name, Value* out) {
  std::string_view n = sym_name(name);
  switch (obj.kind()) {
    case VK::Tensor: {
      const TensorObj* t = obj.as<TensorObj>();
      if (name == S::shape) {
        *out = shape_tuple(t->view.shape());
        return true;
      }
      if (name == S::dtype) {
        *out = Value::dtype(t->view.dtype);
        return true;
      }
      if (name == S::buffer) {
        *out = Value::buffer(t->base().buffer);
        return true;
      }
      if (name == S::ndim) {
        *out = Value::integer(int64_t(t->view.dims.size()));
        return true;
      }
      if (name == S::size) {
        *out = Value::integer(t->view.num_elements());
        return true;
      }
      if (name == S::name) {
        *out = make_str(t->base().name);
        return true;
      }
      if (n == "offset") {
        *out = Value::integer(t->view.offset);
        return true;
      }
      if (n == "strides") {
        std::vector<int64_t> s;
        for (auto& d : t->view.dims) s.push_back(d.stride);
        *out = shape_tuple(s);
        return true;
      }
      for (size_t i = 0; i < std::size(kMethods); ++i)
        if (n == kMethods[i].name) {
          *out = in.builtin(kMethods[i].name, tensor_method, obj, int64_t(i));
          return true;
        }
      return false;
    }
    case VK::Enum:
      if (name == S::name) {
        *out = make_str(enum_member_name(obj.enum_type(), obj.enum_value()));
        return true;
      }
      if (name == S::value) {
        *out = Value::integer(obj.enum_value());
        return true;
      }
      return false;
    case VK::NkiOp:
      if (name == S::__name__) {
        *out = make_str(nki_ops()[obj.nki_op_index()].name);
        return true;
      }
      return false;
    case VK::DType:
      if (name == S::name || name == S::__name__) {
        *out = make_str(std::string(isa::dtype_name(obj.dtype_v())));
        return true;
      }
      if (n == "itemsize") {  // np.dtype(t).itemsize: bytes per element
        *out = Value::integer(int64_t(isa::dtype_size(obj.dtype_v())));
        return true;
      }
      return false;
    default:
      return false;
  }
}

namespace {

void add_key(Interp& in, std::vector<ir::IndexKey>& keys, const Value& k) {
  {
    switch (k.kind()) {
      case VK::Int:
      case VK::Bool:
        keys.push_back(ir::IndexKey::at(k.i()));
        return;
      case VK::Ellipsis:
        keys.push_back(ir::IndexKey::all());
        return;
      case VK::Slice: {
        auto* s = k.as<SliceObj>();
        auto bound = [&](const Value& b) -> std::optional<int64_t> {
          if (b.is_none()) return std::nullopt;
          return in.to_index(b, "tensor slice bounds");
        };
        int64_t step = s->step.is_none() ? 1 : in.to_index(s->step, "tensor slice step");
        keys.push_back(ir::IndexKey::range(bound(s->start), bound(s->stop), step));
        return;
      }
      case VK::Tensor:
        raise("TypeError", "indexing a tensor with a tensor is not supported; use .ap() or .select()");
      case VK::None:
        raise("TypeError", "None (newaxis) is not supported in tensor indexing; use .expand_dim()");
      default:
        raise("TypeError", "tensor indices must be integers, slices, nl.ds(...) or '...', not '" + type_name(k) + "'");
    }
  }
}

void add_key_expr(Interp& in, std::vector<ir::IndexKey>& keys, const Expr* e, FrameObj* f) {
  if (e->kind != NK::Slice) return add_key(in, keys, in.eval(e, f));
  auto* s = static_cast<const SliceExpr*>(e);
  auto bound = [&](const Expr* b) -> std::optional<int64_t> {
    if (!b) return std::nullopt;
    Value v = in.eval(b, f);
    if (v.is_none()) return std::nullopt;
    return in.to_index(v, "tensor slice bounds");
  };
  std::optional<int64_t> lo = bound(s->lower), hi = bound(s->upper), st = bound(s->step);
  keys.push_back(ir::IndexKey::range(lo, hi, st ? *st : 1));
}

// t[keys] for ints, slices and '...'. Legacy kernels may slice past a dimension and rely on a mask= to keep the
// access in bounds (nki-samples' adaptive pooling: `x[256:384]` of 288 rows with a mask of the first 32): there a
// slice [start:stop] with 0 <= start < size < stop gives a view that overhangs the tensor, carrying the error it
// would have raised (deferred_error, raised where the view is used) and per dim the count of in-bounds elements
// (TensorObj::valid). A mask restriction that keeps within them (restrict_value, nl_index.cpp) clears the error.
Value view_of_keys(Interp& in, const TensorObj* t, const std::vector<ir::IndexKey>& keys) {
  t->check_usable();
  const bool on_chip = buffer_on_chip(t->base().buffer);
  try {
    return make<TensorObj>(t->id, ir::index_view(t->view, on_chip, keys), t->kernel);
  } catch (const Error& e) {
    if (!nl::legacy(in) || t->indirect) throw;
    const int nd = int(t->view.dims.size());
    int used = 0;
    for (const auto& k : keys) used += k.kind != ir::IndexKey::Ellipsis;
    if (used > nd) throw;
    ir::View big = t->view;  // the view with each overhung dim lengthened to the slice's stop
    std::vector<ir::IndexKey> clamped = keys;
    bool over = false;
    int d = 0;
    for (size_t i = 0; i < keys.size() && d < nd; ++i) {
      const ir::IndexKey& k = keys[i];
      if (k.kind == ir::IndexKey::Ellipsis) {
        d += nd - used;
        continue;
      }
      const int64_t n = t->view.dims[size_t(d)].count;
      const int64_t start = k.start.value_or(0);
      if (k.kind == ir::IndexKey::Slice && k.step > 0 && k.stop && start >= 0 && start < n && *k.stop > n) {
        big.dims[size_t(d)].count = *k.stop;
        clamped[i].stop = n;
        over = true;
      }
      ++d;
    }
    if (!over) throw;
    ir::View v, c;
    try {
      v = ir::index_view(big, on_chip, keys);
      c = ir::index_view(t->view, on_chip, clamped);  // the in-bounds part: same dims, shorter where overhung
    } catch (const Error&) {
      throw e;
    }
    if (v.dims.size() != c.dims.size()) throw e;
    std::vector<int64_t> valid;
    for (const auto& dim : c.dims) valid.push_back(dim.count);
    return overhanging_view(t, v, e.what(), std::move(valid));
  }
}

}  // namespace

Value nki_get_item(Interp& in, const Value& obj, const Value& given_key) {
  const TensorObj* t = obj.as<TensorObj>();
  const Value key = mgrid_key(given_key);
  if (t->indirect) raise("ValueError", kIndirectNoView);
  if (t->lead) return block_get_item(in, t, key);  // legacy par_dim blocks (nl_index.cpp)
  if (Value r = index_tensor(in, t, key); !r.is_unbound()) return r;  // legacy index tiles (nl_index.cpp)
  std::vector<ir::IndexKey> keys;
  if (key.is(VK::Tuple))
    for (auto& k : items_of(key)) add_key(in, keys, k);
  else
    add_key(in, keys, key);
  return view_of_keys(in, t, keys);
}

Value nki_index_literal(Interp& in, const Value& obj, const Expr* key, FrameObj* f) {
  const TensorObj* t = obj.as<TensorObj>();
  if (t->indirect) raise("ValueError", kIndirectNoView);
  if (t->lead) return nki_get_item(in, obj, in.eval(key, f));
  std::vector<ir::IndexKey> keys;
  if (key->kind == NK::Tuple) {
    auto& elts = static_cast<const SeqExpr*>(key)->elts;
    keys.reserve(elts.size());
    for (const Expr* e : elts) {
      if (e->kind == NK::Starred) return nki_get_item(in, obj, in.eval(key, f));
      if (e->kind != NK::Slice) {
        Value k = in.eval(e, f);
        if (is_index(k)) return nki_get_item(in, obj, in.eval(key, f));  // index tiles (nl_index.cpp)
        if (k.is(VK::Tensor) && std::all_of(keys.begin(), keys.end(), [](const ir::IndexKey& x) {
              return x.kind == ir::IndexKey::Int;
            })) {  // t[idx[i_p, 0], i_f] or t[b, idx[i_p, 0], i_f]: indirect rows (nl_index.cpp)
          std::vector<Value> items;
          for (const ir::IndexKey& x : keys) items.push_back(Value::integer(x.index));
          items.push_back(k);
          for (size_t i = keys.size() + 1; i < elts.size(); ++i) items.push_back(in.eval(elts[i], f));
          return nki_get_item(in, obj, make_tuple(std::move(items)));
        }
        add_key(in, keys, k);
        continue;
      }
      add_key_expr(in, keys, e, f);
    }
  } else {
    if (key->kind != NK::Slice) return nki_get_item(in, obj, in.eval(key, f));
    add_key_expr(in, keys, key, f);
  }
  return view_of_keys(in, t, keys);
}

}  // namespace nkisim::frontend
