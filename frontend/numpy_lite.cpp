// numpy_lite.cpp - the part of numpy that kernels use at compile time: dtypes (np.float32, ... as NKI
// dtypes, callable as conversions), np.dtype, finfo/iinfo, constants and scalar/sequence helpers (prod, sum,
// ceil, floor, sqrt, log2, ...). Any other attribute is an opaque host value: module-level host code may
// mention it, a kernel that uses it gets a located error.
#include <cmath>

#include "frontend/builtin_util.h"
#include "frontend/ndarray.h"
#include "frontend/nki.h"

namespace nkisim::frontend {
namespace {
using detail::nargs;
using detail::to_float;

isa::DType dtype_of(Interp& in, const Value& v, const char* fname) {
  if (v.is(VK::DType)) return v.dtype_v();
  if (v.is(VK::Str))
    if (auto d = isa::parse_dtype(str_of(v))) return *d;
  raise("TypeError", std::string(fname) + "(): data type " + in.repr(v) + " not understood");
}

Value np_dtype(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("dtype", a, 1, 1);
  return Value::dtype(dtype_of(in, a.pos[0], "dtype"));
}

// finfo / iinfo: a namespace with the limits of the type.
Value np_info(Interp& in, const BuiltinObj& b, CallArgs& a) {
  nargs(b.name.c_str(), a, 1, 1);
  isa::DType t = dtype_of(in, a.pos[0], b.name.c_str());
  Value ns = make<ModuleObj>(b.name);
  auto* m = ns.as<ModuleObj>();
  m->initialized = true;
  in.set_global(m, "dtype", Value::dtype(t));
  in.set_global(m, "bits", Value::integer(int64_t(isa::dtype_size(t)) * 8));
  if (b.data == 0) {  // finfo
    double max, eps, tiny;
    switch (t) {
      case isa::DType::float32:
        max = 3.4028234663852886e+38, eps = 1.1920928955078125e-07, tiny = 1.1754943508222875e-38;
        break;
      case isa::DType::float16:
        max = 65504.0, eps = 0.0009765625, tiny = 6.103515625e-05;
        break;
      case isa::DType::bfloat16:
        max = 3.3895313892515355e+38, eps = 0.0078125, tiny = 1.1754943508222875e-38;
        break;
      default:
        raise("ValueError", "finfo(): data type " + std::string(isa::dtype_name(t)) + " not inexact (or not supported)");
    }
    in.set_global(m, "max", Value::floating(max));
    in.set_global(m, "min", Value::floating(-max));
    in.set_global(m, "eps", Value::floating(eps));
    in.set_global(m, "tiny", Value::floating(tiny));
    in.set_global(m, "smallest_normal", Value::floating(tiny));
    return ns;
  }
  if (!isa::is_integer(t) || t == isa::DType::bool_)
    raise("ValueError", "iinfo(): invalid integer data type " + std::string(isa::dtype_name(t)));
  int bits = int(isa::dtype_size(t)) * 8;
  bool is_signed = isa::dtype_kind(t) == isa::DTypeKind::SInt;
  in.set_global(m, "min", Value::integer(is_signed ? -(int64_t(1) << (bits - 1)) : 0));
  in.set_global(m, "max", Value::integer(is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1));
  return ns;
}

// prod / sum over a sequence (or a scalar): ints stay ints, anything else is a float.
Value np_reduce(Interp& in, const BuiltinObj& b, CallArgs& a) {
  nargs(b.name.c_str(), a, 1, 1);
  std::vector<Value> items = a.pos[0].is_number() ? std::vector<Value>{a.pos[0]} : in.to_vector(a.pos[0]);
  bool prod = b.data == 0;
  Value acc = Value::integer(prod ? 1 : 0);
  for (auto& x : items) acc = in.binop(prod ? BinKind::Mul : BinKind::Add, acc, x);
  if (items.empty() && prod) return Value::floating(1.0);  // numpy: prod([]) == 1.0
  return acc;
}

Value np_minmax(Interp& in, const BuiltinObj& b, CallArgs& a) {
  nargs(b.name.c_str(), a, 1, 2);
  std::vector<Value> items = a.npos == 2 ? std::vector<Value>{a.pos[0], a.pos[1]} : in.to_vector(a.pos[0]);
  if (items.empty()) raise("ValueError", "zero-size array to reduction operation " + b.name + " which has no identity");
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i)
    if (in.compare(b.data ? CmpKind::Gt : CmpKind::Lt, items[i], best)) best = items[i];
  return best;
}

// Element-wise math on a scalar; results are floats, as numpy's are.
Value np_unary(Interp& in, const BuiltinObj& b, CallArgs& a) {
  nargs(b.name.c_str(), a, 1, 1);
  if (b.data == 8) return a.pos[0].is_number() ? in.unary(UnaryKind::Neg, in.unary(UnaryKind::Neg, a.pos[0])) : a.pos[0];
  double x = to_float(in, a.pos[0], b.name.c_str());
  switch (b.data) {
    case 0:
      return Value::floating(std::ceil(x));
    case 1:
      return Value::floating(std::floor(x));
    case 2:
      return Value::floating(std::sqrt(x));
    case 3:
      return Value::floating(std::exp(x));
    case 4:
      return Value::floating(std::log(x));
    case 5:
      return Value::floating(std::log2(x));
    case 6:
      return a.pos[0].is(VK::Float) ? Value::floating(std::fabs(x)) : Value::integer(std::llabs(a.pos[0].i()));
    case 7:
      return Value::floating(std::nearbyint(x));  // round half to even
    default:
      return Value::floating(std::trunc(x));
  }
}

Value np_isscalar(Interp&, const BuiltinObj&, CallArgs& a) {
  nargs("isscalar", a, 1, 1);
  return Value::boolean(a.pos[0].is_number() || a.pos[0].is(VK::Str));
}

}  // namespace

// np.float32(x) and friends: a Python number converted to the dtype (rounded like the hardware's from_f32
// for floats; ints wrap to the width as numpy's fixed-width integers do).
Value convert_to_dtype(Interp& in, isa::DType t, CallArgs& a) {
  std::string name(isa::dtype_name(t));
  nargs(name.c_str(), a, 0, 1);
  if (a.npos == 0) return isa::is_float(t) ? Value::floating(0.0) : Value::integer(0);
  const Value& v = a.pos[0];
  double x = detail::to_float(in, v, name.c_str());
  if (t == isa::DType::bool_) return Value::boolean(x != 0);
  if (isa::is_float(t)) return Value::floating(double(isa::to_f32(t, isa::from_f32(t, float(x)))));
  int64_t i = v.is(VK::Float) ? detail::float_to_int(x) : v.i();
  int bits = int(isa::dtype_size(t)) * 8;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(i) & mask;
  if (isa::dtype_kind(t) == isa::DTypeKind::SInt && (u >> (bits - 1)) & 1) return Value::integer(int64_t(u | ~mask));
  return Value::integer(int64_t(u));
}

void install_numpy(Interp& in) {
  ModuleObj* np = in.new_module("numpy").as<ModuleObj>();
  np->open = true;
  auto def = [&](const char* name, BuiltinFn fn, int64_t data = 0) {
    np->globals[intern(name)] = in.builtin(name, fn, Value(), data);
  };
  for (isa::DType t : {isa::DType::bool_, isa::DType::int8, isa::DType::uint8, isa::DType::int16, isa::DType::uint16,
                       isa::DType::int32, isa::DType::uint32, isa::DType::float16, isa::DType::float32})
    np->globals[intern(isa::dtype_name(t))] = Value::dtype(t);
  np->globals[intern("single")] = Value::dtype(isa::DType::float32);
  np->globals[intern("half")] = Value::dtype(isa::DType::float16);
  def("dtype", np_dtype);
  def("finfo", np_info, 0);
  def("iinfo", np_info, 1);
  def("prod", np_reduce, 0);
  def("sum", np_reduce, 1);
  def("min", np_minmax, 0);
  def("amin", np_minmax, 0);
  def("minimum", np_minmax, 0);
  def("max", np_minmax, 1);
  def("amax", np_minmax, 1);
  def("maximum", np_minmax, 1);
  const char* unary[] = {"ceil", "floor", "sqrt", "exp", "log", "log2", "abs", "round", "asarray", "trunc"};
  for (int i = 0; i < int(std::size(unary)); ++i) def(unary[i], np_unary, i);
  def("isscalar", np_isscalar);
  install_numpy_arrays(in, np);
  in.set_global(np, "pi", Value::floating(M_PI));
  in.set_global(np, "e", Value::floating(M_E));
  in.set_global(np, "inf", Value::floating(INFINITY));
  in.set_global(np, "nan", Value::floating(NAN));
  in.set_global(np, "newaxis", Value());
}

}  // namespace nkisim::frontend
