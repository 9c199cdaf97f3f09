// stdlib.cpp - the standard-library modules kernel meta-programs use: math, dataclasses, enum, functools,
// typing and os (as far as compile-time code needs them).
#include <algorithm>
#include <cmath>

#include "frontend/builtin_util.h"
#include "frontend/nki.h"

namespace nkisim::frontend {
namespace {

using namespace detail;

// ---------------------------------------------------------------- math

double arg_f(Interp& in, CallArgs& a, size_t i, const char* fn) {
  if (i >= a.npos) raise("TypeError", std::string("math.") + fn + "() missing argument");
  return to_float(in, a.pos[i], fn);
}

Value m_unary(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 1, 1);
  double x = arg_f(in, a, 0, self.name.c_str());
  auto domain = [] { raise("ValueError", "math domain error"); };
  switch (self.data) {
    case 0:
      if (x < 0) domain();
      return Value::floating(std::sqrt(x));
    case 1:
      return Value::floating(std::exp(x));
    case 2:
      if (x <= 0) domain();
      return Value::floating(std::log2(x));
    case 3:
      if (x <= 0) domain();
      return Value::floating(std::log10(x));
    case 4:
      return Value::floating(std::erf(x));
    case 5:
      return Value::floating(std::sin(x));
    case 6:
      return Value::floating(std::cos(x));
    case 7:
      return Value::floating(std::tan(x));
    case 8:
      return Value::floating(std::tanh(x));
    case 9:
      return Value::floating(std::atan(x));
    case 10:
      return Value::floating(std::fabs(x));
    case 11:
      return Value::boolean(std::isinf(x));
    case 12:
      return Value::boolean(std::isnan(x));
    case 13:
      return Value::boolean(std::isfinite(x));
    case 14:
      return Value::floating(std::erfc(x));
    case 15:
      return Value::floating(std::expm1(x));
    case 16:
      if (x <= -1) domain();
      return Value::floating(std::log1p(x));
    default:
      return Value::floating(x);
  }
}
Value m_round(Interp& in, const BuiltinObj& self, CallArgs& a) {  // ceil, floor, trunc -> int
  nargs(self.name.c_str(), a, 1, 1);
  if (a.pos[0].is_int_like()) return Value::integer(a.pos[0].i());
  double x = arg_f(in, a, 0, self.name.c_str());
  double r = self.data == 0 ? std::ceil(x) : self.data == 1 ? std::floor(x) : std::trunc(x);
  return Value::integer(float_to_int(r));
}
Value m_log(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("log", a, 1, 2);
  double x = arg_f(in, a, 0, "log");
  if (x <= 0) raise("ValueError", "math domain error");
  double r = std::log(x);
  if (a.npos == 2) {
    double b = arg_f(in, a, 1, "log");
    if (b <= 0 || b == 1) raise("ValueError", "math domain error");
    r /= std::log(b);
  }
  return Value::floating(r);
}
int64_t gcd64(int64_t x, int64_t y) {
  x = x < 0 ? -x : x;
  y = y < 0 ? -y : y;
  while (y) {
    int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}
Value m_gcd(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 0, SIZE_MAX);
  bool lcm = self.data == 1;
  int64_t r = lcm ? 1 : 0;
  for (size_t i = 0; i < a.npos; ++i) {
    int64_t v = in.to_index(a.pos[i], self.name.c_str());
    if (!lcm)
      r = gcd64(r, v);
    else {
      if (v == 0 || r == 0) {
        r = 0;
        continue;
      }
      int64_t g = gcd64(r, v), m;
      if (__builtin_mul_overflow(r / g, v < 0 ? -v : v, &m))
        raise("OverflowError", "lcm() result does not fit in 64 bits");
      r = m;
    }
  }
  return Value::integer(r);
}
Value m_pow(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("pow", a, 2, 2);
  return Value::floating(std::pow(arg_f(in, a, 0, "pow"), arg_f(in, a, 1, "pow")));
}
Value m_binary(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 2, 2);
  double x = arg_f(in, a, 0, self.name.c_str()), y = arg_f(in, a, 1, self.name.c_str());
  switch (self.data) {
    case 0:
      return Value::floating(std::copysign(x, y));
    case 1:
      if (y == 0) raise("ValueError", "math domain error");
      return Value::floating(std::fmod(x, y));
    case 2:
      return Value::floating(std::atan2(x, y));
    default:
      return Value::floating(std::hypot(x, y));
  }
}
Value m_isclose(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("isclose", a, {"rel_tol", "abs_tol"});
  nargs("isclose", a, 2, 2, true);
  double x = arg_f(in, a, 0, "isclose"), y = arg_f(in, a, 1, "isclose");
  double rel = kwarg(a, "rel_tol") ? to_float(in, *kwarg(a, "rel_tol"), "isclose") : 1e-9;
  double abs_t = kwarg(a, "abs_tol") ? to_float(in, *kwarg(a, "abs_tol"), "isclose") : 0.0;
  if (x == y) return Value::boolean(true);
  double d = std::fabs(x - y);
  return Value::boolean(d <= std::max(rel * std::max(std::fabs(x), std::fabs(y)), abs_t));
}
Value m_prod(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("prod", a, {"start"});
  nargs("prod", a, 1, 1, true);
  Value acc = kwarg(a, "start") ? *kwarg(a, "start") : Value::integer(1);
  for (auto& v : in.to_vector(a.pos[0])) acc = in.binop(BinKind::Mul, acc, v);
  return acc;
}
Value m_factorial(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("factorial", a, 1, 1);
  int64_t n = in.to_index(a.pos[0], "factorial()");
  if (n < 0) raise("ValueError", "factorial() not defined for negative values");
  Value acc = Value::integer(1);
  for (int64_t i = 2; i <= n; ++i) acc = in.binop(BinKind::Mul, acc, Value::integer(i));
  return acc;
}

// ---------------------------------------------------------------- dataclasses, enum, functools, typing, os

Value dataclass_apply(Interp& in, const Value& cls, bool frozen) {
  if (!cls.is(VK::Class)) raise("TypeError", "@dataclass must decorate a class");
  cls.as<ClassObj>()->dataclass = true;
  cls.as<ClassObj>()->frozen |= frozen;
  return cls;
}
Value b_dataclass_deco(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs("dataclass", a, 1, 1);
  return dataclass_apply(in, a.pos[0], self.data == 1);
}
Value b_dataclass(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (a.npos == 1 && a.nkw == 0) return dataclass_apply(in, a.pos[0], false);
  bool frozen = false;
  for (size_t i = 0; i < a.nkw; ++i)
    if (sym_name(a.kw[i].first) == "frozen") frozen = in.truthy(a.kw[i].second);
  return in.builtin("dataclass", b_dataclass_deco, Value(), frozen ? 1 : 0);
}
Value b_field(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (const Value* d = kwarg(a, "default")) return *d;
  // A default_factory is called for every instance (dataclass_init); the marker carries it.
  if (const Value* f = kwarg(a, "default_factory")) return in.builtin(kDefaultFactory, b_field, *f);
  return Value::unbound();
}

Value b_deco_factory(Interp& in, const BuiltinObj& self, CallArgs& a) {
  // lru_cache / cache / wraps(...) / total_ordering: used bare or with arguments, both return the function.
  if (a.npos == 1 && a.nkw == 0 && (a.pos[0].is(VK::Function) || a.pos[0].is(VK::Class)) && self.data == 0)
    return a.pos[0];
  return in.builtin(self.name.c_str(), [](Interp&, const BuiltinObj&, CallArgs& b) -> Value {
    if (b.npos != 1) raise("TypeError", "decorator takes one argument");
    return b.pos[0];
  });
}

Value b_partial_call(Interp& in, const BuiltinObj& self, CallArgs& a) {
  auto& parts = items_of(self.self);  // (fn, args tuple, kwargs dict)
  std::vector<Value> pos = items_of(parts[1]);
  pos.insert(pos.end(), a.pos, a.pos + a.npos);
  std::vector<std::pair<Sym, Value>> kw;
  for (auto& e : parts[2].as<DictObj>()->entries)
    if (e.live) kw.emplace_back(intern(str_of(e.key)), e.value);
  for (size_t i = 0; i < a.nkw; ++i) kw.push_back(a.kw[i]);
  CallArgs ca{pos.data(), pos.size(), kw.data(), kw.size(), a.site};
  return in.call(parts[0], ca);
}
Value b_partial(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("partial", a, 1, SIZE_MAX, true);
  Value kw = make<DictObj>();
  for (size_t i = 0; i < a.nkw; ++i) kw.as<DictObj>()->set(make_str(sym_str(a.kw[i].first)), a.kw[i].second);
  Value parts = make_tuple({a.pos[0], make_tuple(std::vector<Value>(a.pos + 1, a.pos + a.npos)), kw});
  return in.builtin("partial", b_partial_call, parts);
}
Value b_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("reduce", a, 2, 3);
  auto items = in.to_vector(a.pos[1]);
  size_t i = 0;
  Value acc;
  if (a.npos == 3)
    acc = a.pos[2];
  else {
    if (items.empty()) raise("TypeError", "reduce() of empty iterable with no initial value");
    acc = items[i++];
  }
  for (; i < items.size(); ++i) {
    Value args[2] = {acc, items[i]};
    CallArgs ca{args, 2, nullptr, 0, a.site};
    acc = in.call(a.pos[0], ca);
  }
  return acc;
}

Value b_auto(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs("auto", a, 0, 0);
  return make<InstanceObj>(self.self);
}

Value b_cast(Interp&, const BuiltinObj&, CallArgs& a) {
  nargs("cast", a, 2, 2);
  return a.pos[1];
}

Value b_getenv(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("getenv", a, 1, 2);
  return a.npos > 1 ? a.pos[1] : Value();
}

}  // namespace

void install_stdlib(Interp& in) {
  auto def = [&](ModuleObj* m, const char* name, BuiltinFn fn, int64_t data = 0) {
    m->globals[intern(name)] = in.builtin(name, fn, Value(), data);
  };
  // math
  ModuleObj* math = in.new_module("math").as<ModuleObj>();
  const char* unary[] = {"sqrt", "exp",  "log2",  "log10", "erf",      "sin",  "cos",   "tan",  "tanh",
                         "atan", "fabs", "isinf", "isnan", "isfinite", "erfc", "expm1", "log1p"};
  for (int i = 0; i < int(std::size(unary)); ++i) def(math, unary[i], m_unary, i);
  def(math, "ceil", m_round, 0);
  def(math, "floor", m_round, 1);
  def(math, "trunc", m_round, 2);
  def(math, "log", m_log);
  def(math, "gcd", m_gcd, 0);
  def(math, "lcm", m_gcd, 1);
  def(math, "pow", m_pow);
  def(math, "copysign", m_binary, 0);
  def(math, "fmod", m_binary, 1);
  def(math, "atan2", m_binary, 2);
  def(math, "hypot", m_binary, 3);
  def(math, "isclose", m_isclose);
  def(math, "prod", m_prod);
  def(math, "factorial", m_factorial);
  in.set_global(math, "pi", Value::floating(M_PI));
  in.set_global(math, "e", Value::floating(M_E));
  in.set_global(math, "tau", Value::floating(2 * M_PI));
  in.set_global(math, "inf", Value::floating(INFINITY));
  in.set_global(math, "nan", Value::floating(NAN));

  // dataclasses
  ModuleObj* dc = in.new_module("dataclasses").as<ModuleObj>();
  def(dc, "dataclass", b_dataclass);
  def(dc, "field", b_field);

  // enum
  ModuleObj* en = in.new_module("enum").as<ModuleObj>();
  for (const char* name : {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}) {
    Value c = make<ClassObj>(name);
    c.as<ClassObj>()->is_enum = true;
    c.as<ClassObj>()->mro.push_back(c.as<ClassObj>());
    en->globals[intern(name)] = c;
  }
  Value auto_cls = make<ClassObj>("auto");
  auto_cls.as<ClassObj>()->mro.push_back(auto_cls.as<ClassObj>());
  auto_cls.as<ClassObj>()->builtin = true;
  en->globals[intern("auto")] = in.builtin("auto", b_auto, auto_cls);
  en->globals[intern("unique")] = in.builtin("unique", b_deco_factory, Value(), 0);

  // functools
  ModuleObj* ft = in.new_module("functools").as<ModuleObj>();
  def(ft, "partial", b_partial);
  def(ft, "reduce", b_reduce);
  for (const char* n : {"lru_cache", "cache", "total_ordering"}) def(ft, n, b_deco_factory, 0);
  def(ft, "wraps", b_deco_factory, 1);

  // typing: names used only in annotations; TYPE_CHECKING is False.
  ModuleObj* ty = in.new_module("typing").as<ModuleObj>();
  for (const char* n : {"Any",      "Optional",   "Union",    "List",    "Tuple",    "Dict",     "Callable", "Sequence",
                        "Iterable", "Type",       "Set",      "Literal", "Final",    "ClassVar", "TypeVar",  "Generic",
                        "Protocol", "NamedTuple", "Iterator", "Mapping", "overload", "Annotated"})
    ty->globals[intern(n)] = make<OpaqueObj>(std::string("typing.") + n);
  in.set_global(ty, "TYPE_CHECKING", Value::boolean(false));
  def(ty, "cast", b_cast);

  // os: environment lookups at module scope see an empty environment (kernels must be pure).
  ModuleObj* os = in.new_module("os").as<ModuleObj>();
  in.set_global(os, "environ", make<DictObj>());
  def(os, "getenv", b_getenv);

  install_numpy(in);
}

}  // namespace nkisim::frontend
