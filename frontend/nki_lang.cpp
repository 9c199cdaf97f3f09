// nki_lang.cpp - the nki, nki.language and nki.isa namespaces (+ neuronxcc.nki aliases): dtypes, buffers,
// op codes, enums, tile_size, ranges, nl.ndarray/zeros/ds, @nki.jit. The nki.isa instructions live in
// nki_isa_<family>.cpp (frontend/isa_builder.h), tensor attributes and indexing in nki_tensor.cpp.
#include <algorithm>
#include <cmath>
#include <iterator>

#include "frontend/isa_builder.h"
#include "frontend/nki.h"
#include "frontend/nki_control.h"
#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {


// ---------------------------------------------------------------- tables

const std::vector<NkiOpInfo>& nki_ops() {
  static const std::vector<NkiOpInfo> ops = [] {
    std::vector<NkiOpInfo> v;
#define ALU(id, nm, cls, red) v.push_back({nm, isa::AluOp::id, std::nullopt});
#include "isa/alu_ops.def"
#undef ALU
#define ACT(id, nm)                                                \
  {                                                                \
    bool found = false;                                            \
    for (auto& o : v)                                              \
      if (o.name == nm) {                                          \
        o.act = isa::ActFunc::id;                                  \
        found = true;                                              \
      }                                                            \
    if (!found) v.push_back({nm, std::nullopt, isa::ActFunc::id}); \
  }
#include "isa/act_funcs.def"
#undef ACT
    return v;
  }();
  return ops;
}

const EnumTypeInfo& enum_type(int t) {
  static const EnumTypeInfo types[EnumCount] = {
      {"engine",
       {{"unknown", 0},
        {"tensor", 1},
        {"scalar", 2},
        {"gpsimd", 3},
        {"dma", 4},
        {"vector", 5},
        {"sync", 6},
        {"tensor_engine", 1},
        {"vector_engine", 5},
        {"scalar_engine", 2},
        {"gpsimd_engine", 3},
        {"unknown_engine", 0}}},
      {"reduce_cmd", {{"idle", 0}, {"reset", 1}, {"reduce", 2}, {"reset_reduce", 3}, {"load_reduce", 4}}},
      {"dge_mode", {{"unknown", 0}, {"swdge", 1}, {"hwdge", 2}, {"none", 3}}},
      {"oob_mode", {{"error", 0}, {"skip", 1}}},
      {"nc_version", {{"gen2", 2}, {"gen3", 3}, {"gen4", 4}}},
      {"dma_engine", {{"dma", 1}, {"gpsimd_dma", 2}}},
  };
  return types[t];
}

const char* enum_member_name(int type, int value) {
  for (auto& [n, v] : enum_type(type).members)
    if (v == value) return n;
  return "?";
}

std::string shape_str(const std::vector<int64_t>& shape) { return ir::shape_string(shape); }

std::string nki_repr(const Value& v) {
  switch (v.kind()) {
    case VK::Buffer:
      return buffer_str(v.buffer_v());
    case VK::NkiOp:
      return nki_ops()[v.nki_op_index()].name;
    case VK::Enum:
      return std::string(enum_type(v.enum_type()).name) + "." + enum_member_name(v.enum_type(), v.enum_value());
    case VK::DType:
      return std::string(isa::dtype_name(v.dtype_v()));
    default:
      return std::string("<") + vk_type_name(v.kind()) + ">";
  }
}

// ---------------------------------------------------------------- tensors

namespace {
// Whether new_tensor made `name` (base_k, k >= 1 without leading zeros) from its base.
bool made_unique(const NkiState& s, const std::string& name) {
  const size_t us = name.rfind('_');
  if (us == std::string::npos || us + 1 == name.size() || name.size() - us - 1 > 18 || name[us + 1] == '0')
    return false;
  int64_t k = 0;
  for (size_t i = us + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    k = k * 10 + (name[i] - '0');
  }
  auto it = s.name_suffixes.find(name.substr(0, us));
  return it != s.name_suffixes.end() && std::binary_search(it->second.begin(), it->second.end(), k);
}
}  // namespace

Value new_tensor(Interp& in, ir::Tensor t) {
  // Unique names: a second `a_tile` becomes `a_tile_1`, and so on (the next number whose name is not taken).
  NkiState& s = *in.nki;
  auto [it, fresh] = s.name_uses.try_emplace(t.name, 0);
  if (fresh && made_unique(s, t.name)) it->second = 1;  // a name made earlier is taken like one given
  int& uses = it->second;
  if (uses++ > 0) {
    const std::string base = t.name;
    int64_t k;
    do {
      k = uses++ - 1;
      t.name = base + "_" + std::to_string(k);
    } while (s.name_uses.count(t.name) || made_unique(s, t.name));
    s.name_suffixes[base].push_back(k);
  }
  int id = in.kernel.add_tensor(std::move(t));
  return make<TensorObj>(id, ir::full_view(in.kernel.tensors[id], id), &in.kernel);
}

namespace {

const Value* kw(CallArgs& a, const char* name) {
  for (size_t i = 0; i < a.nkw; ++i)
    if (sym_name(a.kw[i].first) == name) return &a.kw[i].second;
  return nullptr;
}

isa::DType want_dtype(const Value& v, const char* fname) {
  if (v.is(VK::DType)) return v.dtype_v();
  if (v.is(VK::Str)) {
    if (auto d = isa::parse_dtype(str_of(v))) return *d;
    raise("TypeError", std::string(fname) + ": unknown dtype '" + str_of(v) + "'");
  }
  raise("TypeError",
        std::string(fname) + ": dtype must be an NKI dtype such as nl.float32, got '" + type_name(v) + "'");
}

ir::Buffer want_buffer(const Value& v, const char* fname) {
  if (v.is(VK::Buffer)) return v.buffer_v();
  std::string got = v.is(VK::Str) ? "'" + str_of(v) + "'" : "'" + type_name(v) + "'";
  raise("TypeError", std::string(fname) +
                         ": buffer must be nl.sbuf, nl.psum, nl.hbm, nl.private_hbm or nl.shared_hbm, "
                         "got " +
                         got + (v.is(VK::Str) ? " (string buffer names are not accepted)" : ""));
}

// *par_pos: the position of a legacy nl.par_dim(n) marker (the partition dimension), 0 without one.
std::vector<int64_t> want_shape(Interp& in, const Value& v, const char* fname, int* par_pos) {
  if (!v.is(VK::Tuple) && !v.is(VK::List))
    raise("TypeError", std::string(fname) + ": shape must be a tuple of integers, got '" + type_name(v) + "'");
  std::vector<int64_t> shape;
  *par_pos = 0;
  bool seen = false;
  for (auto& d : items_of(v)) {
    if (const ParDimObj* pd = as_par_dim(d)) {  // legacy nl.par_dim(n): the partition dimension
      if (seen) raise("ValueError", std::string(fname) + ": a shape can have only one nl.par_dim");
      seen = true;
      *par_pos = int(shape.size());
      shape.push_back(pd->size);
      continue;
    }
    if (!d.is_int_like())
      raise("TypeError",
            std::string(fname) + ": shape dimensions must be integers, got '" + type_name(d) + "' in " + in.repr(v));
    if (d.i() <= 0) raise("ValueError", std::string(fname) + ": shape dimensions must be positive, got " + in.repr(v));
    shape.push_back(d.i());
  }
  if (shape.empty()) raise("ValueError", std::string(fname) + ": shape must have at least one dimension");
  return shape;
}

// The bytes of tensor `t` (its shape and dtype); a shape whose size overflows, or an HBM tensor larger than the
// target's HBM capacity, is a ValueError at the call.
uint64_t checked_tensor_bytes(Interp& in, const ir::Tensor& t, const char* fname) {
  uint64_t n = isa::dtype_size(t.dtype);
  for (int64_t d : t.shape) n = mul_sat(n, uint64_t(d));
  const double cap = in.nki->hbm_capacity;
  if (!buffer_on_chip(t.buffer) && cap > 0 && double(n) > cap)
    raise("ValueError", std::string(fname) + ": a " + shape_str(t.shape) + " " + std::string(isa::dtype_name(t.dtype)) +
                            " tensor takes " + (n == UINT64_MAX ? std::string("more than 2^64") : std::to_string(n)) +
                            " bytes, more than the " + in.nki->target_name + " HBM capacity of " +
                            std::to_string(uint64_t(cap)) + " bytes (--param hbm_capacity_bytes=N raises it)");
  return n;
}

// Adds an HBM tensor's bytes to the kernel's total; past the HBM capacity is a ValueError at the call.
void charge_hbm(Interp& in, uint64_t bytes, const char* fname) {
  const double cap = in.nki->hbm_capacity;
  in.nki->hbm_used = std::min(in.nki->hbm_used + bytes, UINT64_MAX / 2);
  if (cap > 0 && double(in.nki->hbm_used) > cap)
    raise("ValueError", std::string(fname) + ": the kernel's HBM tensors take " + std::to_string(in.nki->hbm_used) +
                            " bytes with this one, more than the " + in.nki->target_name + " HBM capacity of " +
                            std::to_string(uint64_t(cap)) + " bytes (--param hbm_capacity_bytes=N raises it)");
}

// A block tensor allocated by alloc(func) (resolve_allocation): one tensor per block, each of the tile's shape at
// the placement func gave it; the value is a view with the block dims first (stride 0) over the first one, and
// the block tensors in TensorObj::blocks (nl_blocks.cpp picks them).
// The tensor's name: name= (a string), else the variable the call's result is assigned to, else "tensorN".
void name_tensor(Interp& in, ir::Tensor& t, const Value& name, const char* fname) {
  if (!name.is_unbound() && !name.is_none()) {
    if (!name.is(VK::Str)) raise("TypeError", std::string(fname) + ": name must be a string");
    t.name = str_of(name);
  }
  if (t.name.empty())
    t.name = in.nki->hint_call == in.current_site() && in.nki->hint_name
                 ? sym_str(in.nki->hint_name)
                 : "tensor" + std::to_string(in.kernel.tensors.size());
}

Value func_block_tensor(Interp& in, ir::Tensor t, int lead, const Value& buffer, const Value& name,
                        const std::vector<std::pair<int64_t, int64_t>>& addrs, const Value* fill, const char* fname) {
  t.buffer = want_buffer(buffer, fname);
  std::vector<int64_t> logical = t.shape;
  t.shape.erase(t.shape.begin(), t.shape.begin() + lead);
  if (t.shape.size() < 2)
    raise("ValueError", std::string(fname) + ": a shape with block dimensions before nl.par_dim needs a free "
                                             "dimension after it, got " + shape_str(logical));
  if (t.shape[0] > 128)
    raise("ValueError",
          "Size of partition dimension " + std::to_string(t.shape[0]) + " exceeds architecture limitation of 128");
  name_tensor(in, t, name, fname);
  t.loc = in.loc_of(in.current_site());
  auto ids = std::make_shared<std::vector<int>>();
  for (const auto& a : addrs) {
    ir::Tensor b = t;
    b.address = a;
    Value bt = new_tensor(in, std::move(b));
    ids->push_back(bt.as<TensorObj>()->id);
    if (fill) {
      ir::Op op;
      op.opcode = isa::Opcode::memset;
      op.operands[0] = bt.as<TensorObj>()->view;
      op.params.imm0 = float(fill->num());
      op.loc = t.loc;
      op.call_chain = in.call_chain();
      in.kernel.add_op(std::move(op));
    }
  }
  ir::View v = ir::full_view(in.kernel.tensors[size_t(ids->front())], ids->front());
  for (int d = lead; d-- > 0;) v.dims.insert(v.dims.begin(), ir::ViewDim{0, logical[size_t(d)]});
  Value r = make<TensorObj>(ids->front(), v, &in.kernel);
  r.as<TensorObj>()->lead = lead;
  r.as<TensorObj>()->blocks = std::move(ids);
  return r;
}

// nl.ndarray(shape, dtype, buffer=nl.sbuf, name='', address=None) and its zeros/ones/full variants.
Value make_ndarray(Interp& in, CallArgs& a, const char* fname, const Value* fill, bool fill_param = false) {
  static const ParamSpec plain[] = {{"shape", true}, {"dtype", true}, {"buffer"}, {"name"}, {"address"}};
  // lazy_initialization= (legacy nki-samples kernels; undocumented): when the fill may be written. The values are
  // the fill either way, so it has no effect here.
  static const ParamSpec filled[] = {{"shape", true}, {"dtype", true}, {"buffer"}, {"name"}, {"lazy_initialization"}};
  static const ParamSpec fill_valued[] = {{"shape", true}, {"fill_value", true}, {"dtype", true}, {"buffer"}, {"name"},
                                          {"lazy_initialization"}};
  Value args[6];
  if (fill_param) bind_args(fname, fill_valued, std::size(fill_valued), a, args);
  else if (fill) bind_args(fname, filled, std::size(filled), a, args);
  else bind_args(fname, plain, std::size(plain), a, args);
  int off = fill_param ? 1 : 0;
  if (fill && !args[4 + off].is_unbound() && !nl::legacy(in))
    raise("TypeError", std::string(fname) + "() got an unexpected keyword argument 'lazy_initialization'");
  ir::Tensor t;
  int lead = 0;  // leading block dims before nl.par_dim
  t.shape = want_shape(in, args[0], fname, &lead);
  t.dtype = want_dtype(args[1 + off], fname);
  std::optional<std::pair<int64_t, int64_t>> placed;  // a neuronxcc.nki.compiler allocation (nki_compiler.cpp)
  std::vector<int64_t> fold, logical = t.shape;
  int64_t block_elems = 0;
  std::vector<std::pair<int64_t, int64_t>> block_addrs;  // alloc(func) of a block tensor
  if (!args[2 + off].is_unbound())
    args[2 + off] =
        resolve_allocation(in, args[2 + off], t.shape, lead, t.dtype, &placed, &fold, &block_elems, &block_addrs);
  if (!block_addrs.empty()) return func_block_tensor(in, std::move(t), lead, args[2 + off], args[3 + off], block_addrs, fill, fname);
  for (size_t d = 0; d < fold.size(); ++d) t.shape[d] = fold[d];  // physical blocks (modulo allocation)
  if (block_elems) t.shape.back() = block_elems;
  t.buffer = args[2 + off].is_unbound() ? ir::Buffer::sbuf : want_buffer(args[2 + off], fname);
  if (placed) t.address = placed;
  if (!buffer_on_chip(t.buffer)) lead = 0;  // in HBM nl.par_dim is just a dimension
  if (lead > 0) {
    if (t.shape.size() - size_t(lead) < 2)
      raise("ValueError", std::string(fname) + ": a shape with block dimensions before nl.par_dim needs a free "
                                               "dimension after it, got " + in.repr(args[0]));
    // Storage: the partition dim first, the block dims next (block b at free offset b * tile size).
    std::rotate(t.shape.begin(), t.shape.begin() + lead, t.shape.begin() + lead + 1);
  }
  const Value& name = args[3 + off];
  name_tensor(in, t, name, fname);
  if (!fill && !args[4].is_unbound() && !args[4].is_none()) {
    const Value& addr = args[4];
    if (!(addr.is(VK::Tuple) || addr.is(VK::List)) || items_of(addr).size() != 2 || !items_of(addr)[0].is_int_like() ||
        !items_of(addr)[1].is_int_like())
      raise("TypeError", std::string(fname) + ": address must be a (partition, byte offset) tuple of integers");
    if (!buffer_on_chip(t.buffer))
      raise("ValueError", std::string(fname) + ": address= is only allowed for sbuf and psum tensors");
    t.address = std::make_pair(items_of(addr)[0].i(), items_of(addr)[1].i());
  }
  if (buffer_on_chip(t.buffer) && t.shape[0] > 128)
    raise("ValueError",
          "Size of partition dimension " + std::to_string(t.shape[0]) + " exceeds architecture limitation of 128");
  t.loc = in.loc_of(in.current_site());
  const uint64_t tensor_bytes = checked_tensor_bytes(in, t, fname);
  if (t.buffer == ir::Buffer::shared_hbm) {
    // Under a launch grid every program instance shares the kernel's shared_hbm tensors: the n-th allocation
    // of programs 1, 2, ... is program 0's n-th.
    NlState& st = nl_state(in);
    if (!st.grid.empty()) {
      const bool first = std::all_of(st.program_id.begin(), st.program_id.end(), [](int64_t p) { return p == 0; });
      if (!first) {
        if (st.shared_next >= st.shared_outputs.size())
          raise("ValueError", std::string(fname) + ": program instances of a launch grid must allocate the same "
                                                   "shared_hbm tensors (program 0 allocated " +
                                  std::to_string(st.shared_outputs.size()) + ")");
        const int id = st.shared_outputs[st.shared_next++];
        const ir::Tensor& prev = in.kernel.tensors[size_t(id)];
        if (prev.shape != t.shape || prev.dtype != t.dtype)
          raise("ValueError", std::string(fname) + ": this shared_hbm tensor has shape " + shape_str(t.shape) +
                                  " but program 0 allocated it with shape " + shape_str(prev.shape));
        return make<TensorObj>(id, ir::full_view(prev, id), &in.kernel);
      }
      charge_hbm(in, tensor_bytes, fname);
      Value tensor = new_tensor(in, std::move(t));
      st.shared_outputs.push_back(tensor.as<TensorObj>()->id);
      return tensor;
    }
  }
  if (!buffer_on_chip(t.buffer)) charge_hbm(in, tensor_bytes, fname);
  Value tensor = new_tensor(in, std::move(t));
  if (fill) {
    auto* to = tensor.as<TensorObj>();
    if (!buffer_on_chip(to->base().buffer))
      raise("ValueError", std::string(fname) + ": only sbuf and psum tensors can be initialised");
    ir::Op op;
    op.opcode = isa::Opcode::memset;
    op.operands[0] = to->view;
    op.params.imm0 = float(fill->num());
    op.loc = in.loc_of(in.current_site());
    op.call_chain = in.call_chain();
    in.kernel.add_op(std::move(op));
  }
  if (lead > 0) {  // the user's view: block dims, then the partition dim, then the free dims
    auto* to = tensor.as<TensorObj>();
    ir::View v = to->view;
    std::rotate(v.dims.begin(), v.dims.begin() + 1, v.dims.begin() + lead + 1);
    if (!fold.empty()) {  // the logical block counts and tile size over the folded storage
      for (int d = 0; d < lead; ++d) v.dims[size_t(d)].count = logical[size_t(d)];
      v.dims.back().count = logical.back();
    }
    tensor = make<TensorObj>(to->id, v, to->kernel);
    tensor.as<TensorObj>()->lead = lead;
    tensor.as<TensorObj>()->fold = fold;
  }
  return tensor;
}

Value nl_ndarray(Interp& in, const BuiltinObj&, CallArgs& a) { return make_ndarray(in, a, "ndarray", nullptr); }
Value nl_zeros(Interp& in, const BuiltinObj& b, CallArgs& a) {
  Value fill = Value::floating(double(b.data));
  return make_ndarray(in, a, b.name.c_str(), &fill);
}
Value nl_full(Interp& in, const BuiltinObj&, CallArgs& a) {
  // full(shape, fill_value, dtype, buffer=sbuf, name='')
  const Value* fv = a.npos > 1 ? &a.pos[1] : kw(a, "fill_value");
  if (!fv) raise("TypeError", "full() missing required argument 'fill_value'");
  if (!fv->is_number()) raise("TypeError", "full(): fill_value must be a number");
  Value fill = *fv;
  return make_ndarray(in, a, "full", &fill, true);
}

Value nl_ds(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"start", true}, {"size", true}};
  Value args[2];
  bind_args("ds", ps, 2, a, args);
  int64_t start = in.to_index(args[0], "ds() start");
  int64_t size = in.to_index(args[1], "ds() size");
  if (size < 0) raise("ValueError", "ds(): size must not be negative, got " + std::to_string(size));
  return make<SliceObj>(Value::integer(start), Value::integer(start + size), Value());
}

Value nl_range(Interp& in, const BuiltinObj& b, CallArgs& a) {
  // range/affine_range/sequential_range/static_range(start, stop=None, step=1): plain unrolled ranges.
  // directives= (neuronxcc.nki.compiler.no_reorder(), or a list of directives): the body's ops keep their order.
  // precise_schedule= (legacy; nki-samples' contributed pipelined_attention) is a scheduling hint the legacy
  // signature (*args, **kwargs) took: accepted, no effect (loops are unrolled in program order here).
  static const ParamSpec ps[] = {{"start", true}, {"stop"}, {"step"}, {"directives"}, {"precise_schedule"}};
  Value args[5];
  bind_args(b.name.c_str(), ps, 5, a, args);
  if (!args[4].is_unbound() && !nl::legacy(in))
    raise("TypeError", b.name + "() got an unexpected keyword argument 'precise_schedule'");
  int64_t start = in.to_index(args[0], (b.name + "() arguments").c_str());
  int64_t stop = 0, step = 1;
  if (args[1].is_unbound() || args[1].is_none()) {
    stop = start;
    start = 0;
  } else {
    stop = in.to_index(args[1], (b.name + "() arguments").c_str());
  }
  if (!args[2].is_unbound()) step = in.to_index(args[2], (b.name + "() arguments").c_str());
  if (step == 0) raise("ValueError", b.name + "() arg 3 must not be zero");
  Value r = make<RangeObj>(start, stop, step);
  r.as<RangeObj>()->traced = (b.name == "affine_range" || b.name == "sequential_range") && nl::legacy(in);
  if (!args[3].is_unbound()) {
    auto is_no_reorder = [](const Value& v) { return v.is(VK::Str) && str_of(v) == kNoReorderDirective; };
    bool keep = is_no_reorder(args[3]);
    if (args[3].is(VK::List) || args[3].is(VK::Tuple))
      for (const Value& d : items_of(args[3])) keep = keep || is_no_reorder(d);
    r.as<RangeObj>()->keep_order = keep;
  }
  return r;
}

// program_id(axis=0) / num_programs(axes=0): the instance's position in the --grid launch grid; without a
// grid, the core of an --lnc launch (0 and 1 for LNC=1). An LNC=2 launch (kernel[2]) is a 1-D grid of 2:
// program_ndim() is 1 (0 without a grid or at LNC=1). num_programs(axes) takes an axis, a tuple of axes
// (the product) or None (all programs).
static int64_t grid_axis(const NlState& st, int64_t lnc, int64_t axis, const std::string& fname) {
  const int64_t ndim = st.grid.empty() ? (lnc > 1 ? 1 : 0) : int64_t(st.grid.size());
  if (axis < 0) axis += std::max<int64_t>(ndim, 1);
  if (axis < 0 || (ndim > 0 && axis >= ndim) || (ndim == 0 && axis != 0))
    raise("ValueError", fname + "(): axis " + std::to_string(axis) + " is out of range for a launch grid of " +
                            std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s"));
  return axis;
}
Value nl_program_id(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps_id[] = {{"axis"}}, ps_num[] = {{"axes"}};
  Value args[1];
  bind_args(b.name.c_str(), b.data ? ps_num : ps_id, 1, a, args);
  const NlState& st = nl_state(in);
  const bool num = b.data != 0;
  auto one = [&](const Value& v) {
    const int64_t axis = grid_axis(st, in.nki->lnc, in.to_index(v, (b.name + "() axis").c_str()), b.name);
    if (st.grid.empty()) return int64_t(num ? in.nki->lnc : in.nki->lnc_core);  // --lnc (kernel[N])
    return num ? st.grid[size_t(axis)] : st.program_id[size_t(axis)];
  };
  if (args[0].is_unbound()) return Value::integer(one(Value::integer(0)));
  if (num && args[0].is_none()) {
    int64_t n = in.nki->lnc;
    if (!st.grid.empty()) {
      n = 1;
      for (int64_t g : st.grid) n *= g;
    }
    return Value::integer(n);
  }
  if (args[0].is_none()) return Value::integer(one(Value::integer(0)));
  if (num && (args[0].is(VK::Tuple) || args[0].is(VK::List))) {
    int64_t n = 1;
    for (const Value& x : in.to_vector(args[0])) n *= one(x);
    return Value::integer(n);
  }
  return Value::integer(one(args[0]));
}
Value nl_program_ndim(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (a.npos || a.nkw) raise("TypeError", "program_ndim() takes no arguments");
  const NlState& st = nl_state(in);
  return Value::integer(st.grid.empty() ? (in.nki->lnc > 1 ? 1 : 0) : int64_t(st.grid.size()));
}

Value nl_no_reorder(Interp& in, const BuiltinObj& b, CallArgs& a) {
  if (a.npos || a.nkw) raise("TypeError", "no_reorder() takes no arguments");
  return make<InstanceObj>(b.self);
}
// `with nl.no_reorder():` keeps the ops made inside in program order (ir::Op::keep_order).
Value no_reorder_enter(Interp& in, const BuiltinObj&, CallArgs&) {
  ++in.kernel.keep_order_depth;
  return Value();
}
Value no_reorder_exit(Interp& in, const BuiltinObj&, CallArgs&) {
  if (in.kernel.keep_order_depth > 0) --in.kernel.keep_order_depth;
  return Value();
}

Value nl_buffer_pred(Interp& in, const BuiltinObj& b, CallArgs& a) {
  if (a.npos != 1) raise("TypeError", b.name + "() takes exactly one argument");
  ir::Buffer buf =
      a.pos[0].is(VK::Tensor) ? a.pos[0].as<TensorObj>()->base().buffer : want_buffer(a.pos[0], b.name.c_str());
  switch (b.data) {
    case 0:
      return Value::boolean(buf == ir::Buffer::hbm || buf == ir::Buffer::shared_hbm);
    case 1:
      return Value::boolean(buffer_on_chip(buf));
    case 2:
      return Value::boolean(buf == ir::Buffer::psum);
    default:
      return Value::boolean(buf == ir::Buffer::sbuf);
  }
}

// @nki.jit, @nki.jit(...): marks the function as a kernel and returns it.
Value nki_jit(Interp& in, const BuiltinObj& b, CallArgs& a) {
  // platform_target= names the target the kernel is compiled for (unless --target says otherwise); mode=,
  // additional_compile_opt=, show_compiler_tb= and debug_kernel= choose how the SDK runs it: accepted, no effect.
  std::string target = b.self.is(VK::Str) ? str_of(b.self) : std::string();
  for (size_t i = 0; i < a.nkw; ++i)
    if (sym_name(a.kw[i].first) == "platform_target" && !a.kw[i].second.is_none()) {
      const Value& t = a.kw[i].second;
      if (!t.is(VK::Str) || !isa::find_target(str_of(t)))
        raise("ValueError", b.name + "(): platform_target must be 'trn1', 'trn2' or 'trn3', got " + repr_basic(t));
      target = str_of(t);
    }
  if (a.npos == 1 && a.pos[0].is(VK::Function)) {
    a.pos[0].as<FunctionObj>()->jit = true;
    a.pos[0].as<FunctionObj>()->legacy_jit = b.data == 1;
    if (!target.empty()) a.pos[0].as<FunctionObj>()->platform_target = target;
    return a.pos[0];
  }
  if (a.npos > 0) raise("TypeError", b.name + "() expects a function");
  return in.builtin(b.name.c_str(), nki_jit, target.empty() ? Value() : make_str(target), b.data);
}

// nki.simulate(kernel)(...), nki.simulate_kernel(kernel, ...): a launch from host code. At module level the
// statement is skipped like other host code (Interp::run_module); inside a kernel it is a located error.
Value legacy_host_only(Interp&, const BuiltinObj& b, CallArgs&) {
  throw PyError("HostValueError", b.name + "() runs a kernel from host code; nki-sim runs the kernel file itself "
                                           "(the launch grid of " + b.name + "(kernel[grid], ...) is read from the file)");
}

Value nisa_get_nc_version(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (a.npos || a.nkw) raise("TypeError", "get_nc_version() takes no arguments");
  return Value::enum_val(EnumNcVersion, in.nki->nc_version);
}

}  // namespace

void set_target_constants(Interp& in, const isa::TargetDesc& t) {
  in.nki->nc_version = t.nc_version;
  in.nki->target_name = t.name;
  in.nki->hbm_capacity = in.nki->hbm_capacity_override > 0 ? in.nki->hbm_capacity_override : t.hbm_capacity_bytes;
  ModuleObj* ts = in.nki->tile_size.as<ModuleObj>();
  auto set = [&](const char* name, double v) { in.set_global(ts, name, Value::integer(int64_t(v))); };
  const double bank_bytes = t.psum_partition_bytes / t.psum_banks;
  // Usable SBUF per partition: what the compiler leaves (sbuf_reserved_bytes, isa/target.cpp).
  const double sbuf_usable = t.sbuf_partition_bytes - t.sbuf_reserved_bytes;
  set("pmax", t.partitions);
  set("psum_bank_fmax", bank_bytes / 4);  // fp32 elements
  set("psum_fmax", bank_bytes / 4);       // deprecated alias
  set("psum_bank_fmax_bytes", bank_bytes);
  set("psum_num_banks", t.psum_banks);
  set("gemm_stationary_fmax", t.pe_rows);
  set("gemm_moving_fmax", 512);
  set("bn_stats_fmax", 512);
  set("sbuf_size_bytes", t.sbuf_partition_bytes * t.partitions);
  set("sbuf_fmax_bytes", sbuf_usable);
  set("sbuf_fmax", sbuf_usable / 4);  // fp32 elements
  set("total_available_sbuf_size", sbuf_usable);
}

void install_nki(Interp& in) {
  in.nki = std::make_unique<NkiState>();
  auto def = [&](ModuleObj* m, const char* name, BuiltinFn fn, int64_t data = 0, Value self = Value()) {
    m->globals[intern(name)] = in.builtin(name, fn, std::move(self), data);
  };
  ModuleObj* nki = in.new_module("nki").as<ModuleObj>();
  ModuleObj* nl = in.new_module("nki.language").as<ModuleObj>();
  ModuleObj* isa = in.new_module("nki.isa").as<ModuleObj>();
  ModuleObj* consts = in.new_module("nki.isa.constants").as<ModuleObj>();
  ModuleObj* typing = in.new_module("nki.typing").as<ModuleObj>();
  def(nki, "jit", nki_jit);
  def(nki, "trace", nki_jit);
  def(nki, "simulate", legacy_host_only);

  // dtypes, buffers, op codes
  for (int i = 0; i < isa::kNumDTypes; ++i) nl->globals[intern(isa::dtype_name(isa::DType(i)))] = Value::dtype(isa::DType(i));
  nl->globals[intern("sbuf")] = Value::buffer(ir::Buffer::sbuf);
  nl->globals[intern("psum")] = Value::buffer(ir::Buffer::psum);
  nl->globals[intern("hbm")] = Value::buffer(ir::Buffer::hbm);
  nl->globals[intern("private_hbm")] = Value::buffer(ir::Buffer::hbm);
  nl->globals[intern("shared_hbm")] = Value::buffer(ir::Buffer::shared_hbm);
  const auto& ops = nki_ops();
  for (size_t i = 0; i < ops.size(); ++i) nl->globals[intern(ops[i].name)] = Value::nki_op(int(i));

  // functions
  def(nl, "ndarray", nl_ndarray);
  def(nl, "zeros", nl_zeros, 0);
  def(nl, "ones", nl_zeros, 1);
  def(nl, "full", nl_full);
  def(nl, "ds", nl_ds);
  for (const char* r : {"range", "affine_range", "sequential_range", "static_range"}) def(nl, r, nl_range);
  def(nl, "program_id", nl_program_id, 0);
  def(nl, "num_programs", nl_program_id, 1);
  def(nl, "program_ndim", nl_program_ndim);
  def(nl, "is_hbm", nl_buffer_pred, 0);
  def(nl, "is_on_chip", nl_buffer_pred, 1);
  def(nl, "is_psum", nl_buffer_pred, 2);
  def(nl, "is_sbuf", nl_buffer_pred, 3);
  install_nl_ops(in, nl);  // tiles returned by nl.* (nl_ops*.cpp, nl_index.cpp)
  install_nl_legacy(in, nl);
  Value nr = make<ClassObj>("no_reorder");
  nr.as<ClassObj>()->mro.push_back(nr.as<ClassObj>());
  nr.as<ClassObj>()->builtin = true;
  nr.as<ClassObj>()->set(S::__enter__, in.builtin("__enter__", no_reorder_enter));
  nr.as<ClassObj>()->set(S::__exit__, in.builtin("__exit__", no_reorder_exit));
  def(nl, "no_reorder", nl_no_reorder, 0, nr);
  Value nkiobj = make<ClassObj>("NKIObject");
  nkiobj.as<ClassObj>()->is_nkiobject = true;
  nkiobj.as<ClassObj>()->mro.push_back(nkiobj.as<ClassObj>());
  nl->globals[intern("NKIObject")] = nkiobj;

  // nl.tile_size: plain ints, set per target by set_target_constants (trn2 until then).
  in.nki->tile_size = make<ModuleObj>("tile_size");
  nl->globals[intern("tile_size")] = in.nki->tile_size;
  if (auto trn2 = isa::find_target("trn2")) set_target_constants(in, *trn2);

  // nki.isa: enums and instructions
  for (int t = 0; t < EnumCount; ++t) {
    const EnumTypeInfo& info = enum_type(t);
    Value em = make<ModuleObj>(info.name);
    for (auto& [n, v] : info.members) em.as<ModuleObj>()->globals[intern(n)] = Value::enum_val(t, v);
    isa->globals[intern(info.name)] = em;
  }
  def(isa, "get_nc_version", nisa_get_nc_version);
  // The deprecated module-level engine constants (nki.isa.tensor_engine == nki.isa.engine.tensor, ...).
  for (auto [n, e] : {std::pair{"tensor_engine", kEngineTensor}, {"vector_engine", kEngineVector},
                      {"scalar_engine", kEngineScalar}, {"gpsimd_engine", kEngineGpSimd}, {"unknown_engine", 0}})
    isa->globals[intern(n)] = Value::enum_val(EnumEngine, e);
  install_nki_isa(in, isa);
  // nki.isa.constants holds every nki.isa enum (nki-library imports matmul_perf_mode and oob_mode from it).
  for (int t = 0; t < EnumCount; ++t) consts->globals[intern(enum_type(t).name)] = isa->globals[intern(enum_type(t).name)];
  consts->globals[intern("matmul_perf_mode")] = isa->globals[intern("matmul_perf_mode")];
  install_nki_control(in, nl, isa);  // nki_control.cpp: registers and dynamic loops

  for (const char* n : {"tensor", "mutable_tensor"})
    typing->globals[intern(n)] = make<OpaqueObj>(std::string("nki.typing.") + n);

  // Legacy import paths: copies of the same namespaces, marked so that current-API kernels (decorated with
  // nki.jit) reject their use (nki-language.md §1.1, 0.4.0). neuronxcc.nki.jit marks a legacy kernel.
  in.new_module("neuronxcc").as<ModuleObj>()->legacy = true;
  auto legacy_copy = [&](const char* from, const std::string& to) {
    Value m = in.new_module(to);
    for (auto& [k, v] : in.module_cache[intern(from)].as<ModuleObj>()->globals)
      if (k != S::__name__) m.as<ModuleObj>()->globals[k] = v;
    m.as<ModuleObj>()->legacy = true;
    return m.as<ModuleObj>();
  };
  ModuleObj* legacy = legacy_copy("nki", "neuronxcc.nki");
  def(legacy, "jit", nki_jit, 1);
  def(legacy, "trace", nki_jit, 1);
  // The SDK's test files decorate kernels with nki.baremetal / nki.benchmark / nki.profile (jit with a run mode)
  // and call nki.simulate_kernel(kernel[grid], ...) from host code the evaluator does not run.
  for (const char* n : {"baremetal", "benchmark", "profile"}) def(legacy, n, nki_jit, 1);
  def(legacy, "simulate_kernel", legacy_host_only);
  ModuleObj* legacy_isa = nullptr;
  for (const char* sub : {"language", "isa", "isa.constants", "typing"}) {
    ModuleObj* m = legacy_copy((std::string("nki.") + sub).c_str(), std::string("neuronxcc.nki.") + sub);
    if (std::string(sub) == "isa") legacy_isa = m;
  }
  install_legacy_isa(in, legacy_isa);  // legacy nisa calls return tiles (legacy_isa.cpp)
  install_nki_compiler(in);
}

}  // namespace nkisim::frontend
