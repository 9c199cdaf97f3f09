// nl_legacy.cpp - nki.language functions the legacy SDK tests and tutorials use beyond the tile ops:
// rand(shape, dtype=float32) (uniform [0, 1) from the Vector Engine's generators), empty_like / zeros_like,
// and the nl.fp32 limits namespace (nl.fp32.min / .max, the float32 extremes).
#include <cmath>
#include <limits>

#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {
using isa::AluOp;
using isa::DType;
using isa_binding::present;
using namespace nl;

Value nl_global(Interp& in, const char* name) {
  return in.module_cache[intern("nki.language")].as<ModuleObj>()->globals[intern(name)];
}

// rand(shape, dtype=float32, buffer=sbuf, name=''): u = (32 random bits >> 8) * 2^-24, as the ISA's rand2 and
// dropout draw it; the bits come from `rng` on the Vector Engine (every target has it).
Value fn_rand(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"shape", true}, {"dtype"}, {"buffer"}, {"name"}};
  Value v[4];
  bind_args("rand", ps, 4, a, v);
  const DType dt = dtype_opt(v[1], "rand").value_or(DType::float32);
  if (!isa::is_float(dt)) raise("TypeError", "rand: dtype must be a float type, got " + std::string(dtype_str(dt)));
  if (present(v[2]) && !v[2].is_none() && !(v[2].is(VK::Buffer) && v[2].buffer_v() == ir::Buffer::sbuf))
    raise("ValueError", "rand: only buffer=nl.sbuf is supported by nki-sim");
  // The shape: through nl.ndarray so that it is checked like any other.
  std::pair<Sym, Value> kw[] = {{intern("dtype"), Value::dtype(DType::uint32)}};
  Value sv = v[0];
  CallArgs na{&sv, 1, kw, 1, a.site};
  Value bits = in.call(nl_global(in, "ndarray"), na);
  call_isa(in, "rng", {{"dst", bits}});
  const std::vector<int64_t> shape = bits.as<TensorObj>()->view.shape();
  Value shifted = new_tile(in, shape, DType::uint32, ir::Buffer::sbuf, "rand_bits");
  call_isa(in, "tensor_scalar",
           {{"dst", shifted}, {"data", bits}, {"op0", alu_value(AluOp::right_shift)}, {"operand0", Value::integer(8)}});
  Value out = new_tile(in, shape, dt, ir::Buffer::sbuf, "rand");
  call_isa(in, "tensor_scalar", {{"dst", out},
                                 {"data", shifted},
                                 {"op0", alu_value(AluOp::multiply)},
                                 {"operand0", Value::floating(std::ldexp(1.0, -24))}});
  return out;
}

// empty_like(x, dtype=None, buffer=None, name='') / zeros_like(...): nl.ndarray / nl.zeros of x's shape; the
// dtype defaults to x's, the buffer to x's (empty_like) or SBUF (zeros_like), as the API reference says.
Value fn_like(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"x", true}, {"dtype"}, {"buffer"}, {"name"}};
  Value v[4];
  const char* fname = b.data ? "zeros_like" : "empty_like";
  bind_args(fname, ps, 4, a, v);
  const TensorObj* t = tile_arg(v[0], fname, "x");
  std::vector<Value> dims;
  for (int64_t d : t->view.shape()) dims.push_back(Value::integer(d));
  Value shape = make_tuple(std::move(dims));
  const Value dt = present(v[1]) && !v[1].is_none() ? v[1] : Value::dtype(t->view.dtype);
  Value buf = present(v[2]) && !v[2].is_none() ? v[2] : b.data ? Value::buffer(ir::Buffer::sbuf)
                                                               : Value::buffer(t->base().buffer);
  std::vector<std::pair<Sym, Value>> kw = {{intern("dtype"), dt}, {intern("buffer"), buf}};
  if (present(v[3]) && !v[3].is_none()) kw.push_back({intern("name"), v[3]});
  CallArgs na{&shape, 1, kw.data(), kw.size(), a.site};
  return in.call(nl_global(in, b.data ? "zeros" : "ndarray"), na);
}

}  // namespace

Value as_op_code(Interp& in, const Value& v) {
  if (!v.is(VK::Builtin) || !in.nki) return v;
  auto it = in.nki->op_aliases.find(v.obj());
  return it == in.nki->op_aliases.end() ? v : Value::nki_op(it->second);
}

void add_op_alias(Interp& in, const Value& fn, const char* op) {
  const auto& ops = nki_ops();
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == op) {
      in.nki->op_aliases[fn.obj()] = int(i);
      return;
    }
}

void install_nl_legacy(Interp& in, ModuleObj* nl) {
  nl->globals[intern("rand")] = in.builtin("rand", fn_rand);
  nl->globals[intern("empty_like")] = in.builtin("empty_like", fn_like, Value(), 0);
  nl->globals[intern("zeros_like")] = in.builtin("zeros_like", fn_like, Value(), 1);
  Value fp32 = make<ModuleObj>("fp32");
  in.set_global(fp32.as<ModuleObj>(), "min", Value::floating(-double(std::numeric_limits<float>::max())));
  in.set_global(fp32.as<ModuleObj>(), "max", Value::floating(double(std::numeric_limits<float>::max())));
  nl->globals[intern("fp32")] = fp32;
  // nl reductions passed where an ALU op is expected (the legacy tests' `op=nl.max`).
  for (auto [fn, op] : {std::pair{"max", "maximum"}, {"min", "minimum"}, {"sum", "add"}, {"prod", "multiply"}})
    if (auto it = nl->globals.find(intern(fn)); it != nl->globals.end() && it->second.is(VK::Builtin))
      add_op_alias(in, it->second, op);
  // numpy ufuncs as operators (legacy kernels pass np.add, np.square, np.greater_equal, ... as op=): those
  // numpy_lite.cpp defines as scalar helpers (np.maximum, np.exp, ...) stand for the op where one is expected;
  // the others are the op code itself, callable on tiles like nl.add.
  ModuleObj* np = in.module_cache[intern("numpy")].as<ModuleObj>();
  // nl.finfo / nl.iinfo (the legacy nki.language re-exported numpy's): the limits of a dtype, host-side.
  for (const char* f : {"finfo", "iinfo"})
    if (auto it = np->globals.find(intern(f)); it != np->globals.end() && !nl->globals.count(intern(f)))
      nl->globals[intern(f)] = it->second;
  static const std::pair<const char*, const char*> kUfuncs[] = {
      {"add", "add"}, {"subtract", "subtract"}, {"multiply", "multiply"}, {"divide", "divide"},
      {"true_divide", "divide"}, {"power", "power"}, {"maximum", "maximum"}, {"minimum", "minimum"},
      {"equal", "equal"}, {"not_equal", "not_equal"}, {"greater", "greater"}, {"greater_equal", "greater_equal"},
      {"less", "less"}, {"less_equal", "less_equal"}, {"logical_and", "logical_and"}, {"logical_or", "logical_or"},
      {"logical_xor", "logical_xor"}, {"logical_not", "logical_not"}, {"bitwise_and", "bitwise_and"},
      {"bitwise_or", "bitwise_or"}, {"bitwise_xor", "bitwise_xor"}, {"invert", "invert"},
      {"left_shift", "left_shift"}, {"right_shift", "right_shift"}, {"abs", "abs"}, {"absolute", "abs"},
      {"reciprocal", "reciprocal"}, {"square", "square"}, {"sqrt", "sqrt"}, {"exp", "exp"}, {"log", "log"},
      {"tanh", "tanh"}, {"sin", "sin"}, {"arctan", "arctan"}, {"sign", "sign"}, {"max", "maximum"},
      {"amax", "maximum"}, {"min", "minimum"}, {"amin", "minimum"}, {"sum", "add"}, {"prod", "multiply"},
      {"copy", "copy"}};  // np.copy as an activation: the identity (nki-samples contributed pipelined_attention)
  const auto& ops = nki_ops();
  for (auto [np_name, op] : kUfuncs) {
    int idx = -1;
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].name == op) idx = int(i);
    if (idx < 0) continue;
    auto it = np->globals.find(intern(np_name));
    if (it != np->globals.end() && it->second.is(VK::Builtin))
      in.nki->op_aliases[it->second.obj()] = idx;
    else if (it == np->globals.end())
      np->globals[intern(np_name)] = Value::nki_op(idx);
  }
}

}  // namespace nkisim::frontend
