// ops.cpp - Python operator semantics: int (64-bit, overflow -> OverflowError) and float arithmetic,
// sequence/str operators, comparisons, truthiness, containment, repr/str, iteration.
#include <cmath>

#include "frontend/interp.h"
#include "frontend/ndarray.h"
#include "frontend/nki.h"
#include "frontend/nki_control.h"
#include "frontend/utf8.h"

namespace nkisim::frontend {

const char* bin_symbol(BinKind k) {
  static const char* const s[] = {"+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"};
  return s[int(k)];
}

static const char* bin_dunder(BinKind k, bool reflected) {
  static const char* const n[] = {"add", "sub",    "mul",    "matmul", "truediv", "floordiv", "mod",
                                  "pow", "lshift", "rshift", "or",     "xor",     "and"};
  static thread_local std::string buf;
  buf = std::string(reflected ? "__r" : "__") + n[int(k)] + "__";
  return buf.c_str();
}

[[noreturn]] static void overflow() {
  raise("OverflowError",
        "integer overflow: the result does not fit in 64 bits (the compile-time evaluator uses "
        "64-bit integers)");
}

static int64_t floordiv_i(int64_t a, int64_t b) {
  if (b == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
  if (a == INT64_MIN && b == -1) overflow();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
static int64_t mod_i(int64_t a, int64_t b) {
  if (b == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static void divmod_f(double a, double b, double* q, double* r) {
  if (b == 0.0) raise("ZeroDivisionError", "float divmod()");
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  *q = floordiv;
  *r = mod;
}

static Value int_binop(BinKind k, int64_t a, int64_t b) {
  int64_t r;
  switch (k) {
    case BinKind::Add:
      if (__builtin_add_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinKind::Sub:
      if (__builtin_sub_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinKind::Mul:
      if (__builtin_mul_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinKind::Div:
      if (b == 0) raise("ZeroDivisionError", "division by zero");
      return Value::floating(double(a) / double(b));
    case BinKind::FloorDiv:
      return Value::integer(floordiv_i(a, b));
    case BinKind::Mod:
      return Value::integer(mod_i(a, b));
    case BinKind::Pow: {
      if (b < 0) {
        if (a == 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
        return Value::floating(std::pow(double(a), double(b)));
      }
      int64_t result = 1, base = a;
      while (b) {
        if (b & 1)
          if (__builtin_mul_overflow(result, base, &result)) overflow();
        b >>= 1;
        if (b && __builtin_mul_overflow(base, base, &base)) overflow();
      }
      return Value::integer(result);
    }
    case BinKind::LShift:
      if (b < 0) raise("ValueError", "negative shift count");
      if (a == 0) return Value::integer(0);
      if (b >= 63 || (a > 0 ? a > (INT64_MAX >> b) : a < (INT64_MIN >> b))) overflow();
      return Value::integer(int64_t(uint64_t(a) << b));
    case BinKind::RShift:
      if (b < 0) raise("ValueError", "negative shift count");
      return Value::integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
    case BinKind::BitOr:
      return Value::integer(a | b);
    case BinKind::BitXor:
      return Value::integer(a ^ b);
    case BinKind::BitAnd:
      return Value::integer(a & b);
    default:
      return Value::unbound();
  }
}

static Value float_binop(BinKind k, double a, double b) {
  switch (k) {
    case BinKind::Add:
      return Value::floating(a + b);
    case BinKind::Sub:
      return Value::floating(a - b);
    case BinKind::Mul:
      return Value::floating(a * b);
    case BinKind::Div:
      if (b == 0.0) raise("ZeroDivisionError", "float division by zero");
      return Value::floating(a / b);
    case BinKind::FloorDiv: {
      if (b == 0.0) raise("ZeroDivisionError", "float floor division by zero");
      double q, r;
      divmod_f(a, b, &q, &r);
      return Value::floating(q);
    }
    case BinKind::Mod: {
      if (b == 0.0) raise("ZeroDivisionError", "float modulo");
      double q, r;
      divmod_f(a, b, &q, &r);
      return Value::floating(r);
    }
    case BinKind::Pow: {
      if (a == 0.0 && b < 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
      if (a < 0 && std::floor(b) != b) raise("ValueError", "complex results are not supported at compile time");
      double r = std::pow(a, b);
      if (std::isinf(r) && std::isfinite(a) && std::isfinite(b))
        raise("OverflowError", "(34, 'Numerical result out of range')");
      return Value::floating(r);
    }
    default:
      return Value::unbound();
  }
}

static Value repeat_seq(const Value& seq, int64_t n) {
  if (n < 0) n = 0;
  if (seq.is(VK::Str)) {
    const std::string& s = str_of(seq);
    check_heap_budget(mul_sat(s.size(), uint64_t(n)));
    std::string out;
    out.reserve(s.size() * n);
    for (int64_t i = 0; i < n; ++i) out += s;
    return make<StrObj>(std::move(out), seq.as<StrObj>()->bytes);
  }
  auto& items = items_of(seq);
  check_heap_budget(mul_sat(mul_sat(items.size(), uint64_t(n)), sizeof(Value)));
  std::vector<Value> out;
  out.reserve(items.size() * n);
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  return seq.is(VK::List) ? make_list(std::move(out)) : make_tuple(std::move(out));
}

std::string percent_format(Interp& in, const std::string& fmt, const Value& args);  // format.cpp

Value Interp::binop(BinKind k, const Value& a, const Value& b) {
  if (a.is_int_like() && b.is_int_like()) {
    Value r = int_binop(k, a.i(), b.i());
    if (!r.is_unbound())
      return (a.is(VK::Bool) && b.is(VK::Bool) && (k == BinKind::BitOr || k == BinKind::BitAnd || k == BinKind::BitXor))
                 ? Value::boolean(r.i())
                 : r;
  } else if (a.is_number() && b.is_number()) {
    Value r = float_binop(k, a.num(), b.num());
    if (!r.is_unbound()) return r;
  }
  if (as_ndarray(a) || as_ndarray(b)) {
    Value r = ndarray_binop(*this, k, a, b);
    if (!r.is_unbound()) return r;
  }
  switch (k) {
    case BinKind::Add:
      if (a.is(VK::Str) && b.is(VK::Str) && a.as<StrObj>()->bytes == b.as<StrObj>()->bytes) {
        check_heap_budget(uint64_t(str_of(a).size()) + str_of(b).size());
        return make<StrObj>(str_of(a) + str_of(b), a.as<StrObj>()->bytes);
      }
      if ((a.is(VK::List) && b.is(VK::List)) || (a.is(VK::Tuple) && b.is(VK::Tuple))) {
        check_heap_budget((uint64_t(items_of(a).size()) + items_of(b).size()) * sizeof(Value));
        std::vector<Value> out = items_of(a);
        out.insert(out.end(), items_of(b).begin(), items_of(b).end());
        return a.is(VK::List) ? make_list(std::move(out)) : make_tuple(std::move(out));
      }
      break;
    case BinKind::Mul:
      if ((a.is(VK::Str) || a.is(VK::List) || a.is(VK::Tuple)) && b.is_int_like()) return repeat_seq(a, b.i());
      if ((b.is(VK::Str) || b.is(VK::List) || b.is(VK::Tuple)) && a.is_int_like()) return repeat_seq(b, a.i());
      break;
    case BinKind::Mod:
      if (a.is(VK::Str)) return make_str(percent_format(*this, str_of(a), b));
      break;
    case BinKind::BitOr:
    case BinKind::BitAnd:
    case BinKind::Sub:
    case BinKind::BitXor:
      if (a.is(VK::Dict) && b.is(VK::Dict) && k == BinKind::BitOr) {
        Value d = make<DictObj>();
        for (auto* src : {a.as<DictObj>(), b.as<DictObj>()})
          for (auto& e : src->entries)
            if (e.live) d.as<DictObj>()->set(e.key, e.value);
        return d;
      }
      if (a.is(VK::Set) && b.is(VK::Set)) {
        Value d = make<DictObj>(VK::Set);
        auto *x = a.as<DictObj>(), *y = b.as<DictObj>();
        for (auto& e : x->entries) {
          if (!e.live) continue;
          bool in_y = y->find(e.key) != nullptr;
          if ((k == BinKind::BitOr) || (k == BinKind::BitAnd && in_y) ||
              ((k == BinKind::Sub || k == BinKind::BitXor) && !in_y))
            d.as<DictObj>()->set(e.key, Value());
        }
        if (k == BinKind::BitOr || k == BinKind::BitXor)
          for (auto& e : y->entries)
            if (e.live && (k == BinKind::BitOr || !x->find(e.key))) d.as<DictObj>()->set(e.key, Value());
        return d;
      }
      break;
    default:
      break;
  }
  // User-defined operators.
  Value m;
  if (a.is(VK::Instance) && try_get_attr(a, intern(bin_dunder(k, false)), &m)) {
    Value arg = b;
    CallArgs ca{&arg, 1, nullptr, 0, cur_site_};
    return call(m, ca);
  }
  if (b.is(VK::Instance) && try_get_attr(b, intern(bin_dunder(k, true)), &m)) {
    Value arg = a;
    CallArgs ca{&arg, 1, nullptr, 0, cur_site_};
    return call(m, ca);
  }
  if (a.is(VK::Opaque) || b.is(VK::Opaque)) opaque_used(a.is(VK::Opaque) ? a : b);
  if (nl_operand(a) || nl_operand(b)) return nl_binop(*this, k, a, b);
  if (a.is(VK::Tensor) || b.is(VK::Tensor))
    raise("TypeError", std::string("tensor operator '") + bin_symbol(k) +
                           "' is not supported; compute with nki.isa instructions (e.g. nisa.tensor_tensor)");
  raise("TypeError", std::string("unsupported operand type(s) for ") + bin_symbol(k) + ": '" + type_name(a) +
                         "' and '" + type_name(b) + "'");
}

Value Interp::unary(UnaryKind k, const Value& v) {
  switch (k) {
    case UnaryKind::Not:
      return Value::boolean(!truthy(v));
    case UnaryKind::Neg:
      if (v.is_int_like()) {
        if (v.i() == INT64_MIN) overflow();
        return Value::integer(-v.i());
      }
      if (v.is(VK::Float)) return Value::floating(-v.f());
      break;
    case UnaryKind::Pos:
      if (v.is_int_like()) return Value::integer(v.i());
      if (v.is(VK::Float)) return v;
      break;
    case UnaryKind::Invert:
      if (v.is_int_like()) return Value::integer(~v.i());
      break;
  }
  if (v.is(VK::Instance)) {
    const char* names[] = {"", "__neg__", "__pos__", "__invert__"};
    Value m;
    if (try_get_attr(v, intern(names[int(k)]), &m)) return call0(m, cur_site_);
  }
  if (v.is(VK::Opaque)) opaque_used(v);
  if (k != UnaryKind::Not && nl_operand(v)) return nl_unary(*this, k, v);
  const char* sym[] = {"not", "-", "+", "~"};
  raise("TypeError", std::string("bad operand type for unary ") + sym[int(k)] + ": '" + type_name(v) + "'");
}

bool Interp::equal(const Value& a, const Value& b) {
  check_stack();
  if (a.is(VK::Instance) || b.is(VK::Instance)) {
    const Value& x = a.is(VK::Instance) ? a : b;
    const Value& y = a.is(VK::Instance) ? b : a;
    Value m;
    if (x.as<InstanceObj>()->cls.as<ClassObj>()->lookup(S::__eq__) && try_get_attr(x, S::__eq__, &m)) {
      Value arg = y;
      CallArgs ca{&arg, 1, nullptr, 0, cur_site_};
      return truthy(call(m, ca));
    }
    if (a.is_heap() && b.is_heap() && a.obj() == b.obj()) return true;
    // Dataclasses compare their fields when both sides are of the same class.
    auto* cls = x.as<InstanceObj>()->cls.as<ClassObj>();
    bool dc = false;
    for (ClassObj* c : cls->mro) dc |= c->dataclass;
    if (!dc || !y.is(VK::Instance) || y.as<InstanceObj>()->cls.obj() != cls) return false;
    for (Sym s : dataclass_fields(cls)) {
      auto &xa = x.as<InstanceObj>()->attrs, &ya = y.as<InstanceObj>()->attrs;
      auto i = xa.find(s), j = ya.find(s);
      if (i == xa.end() || j == ya.end() || !equal(i->second, j->second)) return false;
    }
    return true;
  }
  if ((a.is(VK::Tuple) && b.is(VK::Tuple)) || (a.is(VK::List) && b.is(VK::List))) {
    auto &x = items_of(a), &y = items_of(b);
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!equal(x[i], y[i])) return false;
    return true;
  }
  return basic_equal(a, b);
}

static int cmp_order(Interp& in, CmpKind k, const Value& a, const Value& b);

bool Interp::compare(CmpKind k, const Value& a, const Value& b) {
  switch (k) {
    case CmpKind::Eq:
      return equal(a, b);
    case CmpKind::NotEq:
      return !equal(a, b);
    case CmpKind::Is:
    case CmpKind::IsNot: {
      if (in_kernel && !a.is_none() && !b.is_none())
        raise("TypeError", std::string("'") + (k == CmpKind::Is ? "is" : "is not") +
                               "' is only supported with None in NKI kernels; compare values with == or !=");
      bool same = a.kind() == b.kind() && (a.is_heap() ? a.obj() == b.obj() : a.raw_bits() == b.raw_bits());
      if (a.is(VK::None) && b.is(VK::None)) same = true;
      return k == CmpKind::Is ? same : !same;
    }
    case CmpKind::In:
      return contains(b, a);
    case CmpKind::NotIn:
      return !contains(b, a);
    default:
      break;
  }
  int c = cmp_order(*this, k, a, b);
  switch (k) {
    case CmpKind::Lt:
      return c < 0;
    case CmpKind::LtE:
      return c <= 0;
    case CmpKind::Gt:
      return c > 0;
    default:
      return c >= 0;
  }
}

static const char* cmp_symbol(CmpKind k) {
  switch (k) {
    case CmpKind::Lt:
      return "<";
    case CmpKind::LtE:
      return "<=";
    case CmpKind::Gt:
      return ">";
    default:
      return ">=";
  }
}

// Three-way comparison for ordering operators (NaN compares as unordered: returns 2 so all tests fail).
static int cmp_order(Interp& in, CmpKind k, const Value& a, const Value& b) {
  if (a.is_int_like() && b.is_int_like()) return a.i() < b.i() ? -1 : a.i() > b.i();
  if (a.is_number() && b.is_number()) {
    double x = a.num(), y = b.num();
    if (std::isnan(x) || std::isnan(y)) return k == CmpKind::Lt || k == CmpKind::LtE ? 2 : -2;
    if (a.is_int_like() || b.is_int_like()) {
      // exact int/float comparison
      const Value& iv = a.is_int_like() ? a : b;
      double fv = a.is_int_like() ? y : x;
      int sign;
      if (fv >= 9223372036854775808.0)
        sign = -1;
      else if (fv < -9223372036854775808.0)
        sign = 1;
      else {
        double fl = std::floor(fv);
        int64_t fi = int64_t(fl);
        if (iv.i() < fi)
          sign = -1;
        else if (iv.i() > fi)
          sign = 1;
        else
          sign = fl == fv ? 0 : -1;
      }
      return a.is_int_like() ? sign : -sign;
    }
    return x < y ? -1 : x > y;
  }
  // nki.isa.nc_version members are ordered by generation (`get_nc_version() >= nc_version.gen3`): an NKI
  // extension over Python's Enum, which nki-library relies on (docs/compatibility.md).
  if (a.is(VK::Enum) && b.is(VK::Enum) && a.enum_type() == EnumNcVersion && b.enum_type() == EnumNcVersion)
    return a.enum_value() < b.enum_value() ? -1 : a.enum_value() > b.enum_value();
  if (a.is(VK::Str) && b.is(VK::Str)) {
    int c = str_of(a).compare(str_of(b));
    return c < 0 ? -1 : c > 0;
  }
  if ((a.is(VK::Tuple) && b.is(VK::Tuple)) || (a.is(VK::List) && b.is(VK::List))) {
    auto &x = items_of(a), &y = items_of(b);
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (in.equal(x[i], y[i])) continue;
      return in.compare(CmpKind::Lt, x[i], y[i]) ? -1 : 1;
    }
    return x.size() < y.size() ? -1 : x.size() > y.size();
  }
  if (a.is(VK::Instance)) {
    const char* names[] = {"", "", "__lt__", "__le__", "__gt__", "__ge__"};
    Value m;
    if (in.try_get_attr(a, intern(names[int(k)]), &m)) {
      Value arg = b;
      CallArgs ca{&arg, 1, nullptr, 0, in.current_site()};
      bool r = in.truthy(in.call(m, ca));
      // Encode the boolean answer for the requested operator.
      switch (k) {
        case CmpKind::Lt:
          return r ? -1 : 1;
        case CmpKind::LtE:
          return r ? -1 : 1;
        case CmpKind::Gt:
          return r ? 1 : -1;
        default:
          return r ? 1 : -1;
      }
    }
  }
  raise("TypeError", std::string("'") + cmp_symbol(k) + "' not supported between instances of '" + type_name(a) +
                         "' and '" + type_name(b) + "'");
}

bool Interp::contains(const Value& c, const Value& item) {
  switch (c.kind()) {
    case VK::List:
    case VK::Tuple:
      for (auto& x : items_of(c))
        if (equal(x, item)) return true;
      return false;
    case VK::Str:
      if (!item.is(VK::Str))
        raise("TypeError", "'in <string>' requires string as left operand, not " + type_name(item));
      return str_of(c).find(str_of(item)) != std::string::npos;
    case VK::Dict:
    case VK::Set:
      return c.as<DictObj>()->find(item) != nullptr;
    case VK::Range: {
      if (!item.is_number()) return false;
      auto* r = c.as<RangeObj>();
      if (item.is(VK::Float) && std::floor(item.f()) != item.f()) return false;
      int64_t v = item.is(VK::Float) ? int64_t(item.f()) : item.i();
      if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop)) return false;
      return (v - r->start) % r->step == 0;
    }
    case VK::Instance: {
      Value m;
      if (try_get_attr(c, S::__contains__, &m)) {
        Value arg = item;
        CallArgs ca{&arg, 1, nullptr, 0, cur_site_};
        return truthy(call(m, ca));
      }
      for (auto& x : to_vector(c))
        if (equal(x, item)) return true;
      return false;
    }
    case VK::Class: {
      if (c.as<ClassObj>()->is_enum) return item.is(VK::Instance) && item.as<InstanceObj>()->cls.obj() == c.obj();
      break;
    }
    default:
      break;
  }
  raise("TypeError", "argument of type '" + type_name(c) + "' is not iterable");
}

bool Interp::truthy(const Value& v) {
  if (as_vreg(v))
    raise("TypeError", "a VirtualRegister's value is only known at run time: it cannot be used as a condition "
                       "(use nl.while_loop)");
  bool known;
  bool t = is_truthy_basic(v, &known);
  if (known) {
    if (v.is(VK::Tensor) && nki->compare_results.count(v.as<TensorObj>()->id))
      raise("TypeError", "the value of a comparison of tensors is not known at compile time (it cannot be used as a "
                         "condition)");
    return t;
  }
  if (v.is(VK::Opaque)) opaque_used(v);
  Value m;
  if (try_get_attr(v, S::__bool__, &m)) return truthy(call0(m, cur_site_));
  if (try_get_attr(v, S::__len__, &m)) return truthy(call0(m, cur_site_));
  return true;
}

std::string Interp::repr(const Value& v) {
  check_stack();
  switch (v.kind()) {
    case VK::Instance: {
      Value m;
      auto* cls = v.as<InstanceObj>()->cls.as<ClassObj>();
      if (cls->lookup(S::__repr__) && try_get_attr(v, S::__repr__, &m)) return str(call0(m, cur_site_));
      if (cls->is_enum) {
        auto& at = v.as<InstanceObj>()->attrs;
        return "<" + cls->name + "." + str(at[S::name]) + ": " + repr(at[S::value]) + ">";
      }
      if (cls->is_exception) {
        auto it = v.as<InstanceObj>()->attrs.find(S::args);
        std::string a = it != v.as<InstanceObj>()->attrs.end() ? repr(it->second) : "()";
        if (a.size() > 2 && a.substr(a.size() - 2) == ",)") a = a.substr(0, a.size() - 2) + ")";
        return cls->name + a;
      }
      if (cls->dataclass || cls->is_nkiobject) {
        std::string out = cls->name + "(";
        bool first = true;
        for (ClassObj* c : cls->mro)
          for (Sym s : c->fields) {
            auto it = v.as<InstanceObj>()->attrs.find(s);
            if (it == v.as<InstanceObj>()->attrs.end()) continue;
            if (!first) out += ", ";
            first = false;
            out += sym_str(s) + "=" + repr(it->second);
          }
        return out + ")";
      }
      return v.obj()->repr();
    }
    case VK::Tuple:
    case VK::List:
    case VK::Dict:
    case VK::Set:
      return repr_container(v, [](const Value& x, void* in) { return static_cast<Interp*>(in)->repr(x); }, this);
    default:
      return repr_basic(v);
  }
}

std::string Interp::str(const Value& v) {
  if (v.is(VK::Str) && !v.as<StrObj>()->bytes) return str_of(v);
  if (v.is(VK::Instance)) {
    auto* cls = v.as<InstanceObj>()->cls.as<ClassObj>();
    Value m;
    if (cls->lookup(S::__str__) && try_get_attr(v, S::__str__, &m)) return str(call0(m, cur_site_));
    if (cls->is_exception && !cls->lookup(S::__repr__)) {
      auto it = v.as<InstanceObj>()->attrs.find(S::args);
      if (it == v.as<InstanceObj>()->attrs.end() || !it->second.is(VK::Tuple)) return "";
      auto& a = items_of(it->second);
      if (a.empty()) return "";
      if (a.size() == 1) return str(a[0]);
      return repr(it->second);
    }
    if (cls->is_enum) return cls->name + "." + str(v.as<InstanceObj>()->attrs[S::name]);
  }
  return repr(v);
}

int64_t Interp::to_index(const Value& v, const char* what) {
  if (v.is_int_like()) return v.i();
  if (v.is(VK::Opaque)) opaque_used(v);
  if (v.is(VK::Instance)) {
    Value m;
    if (try_get_attr(v, intern("__index__"), &m)) return to_index(call0(m, cur_site_), what);
  }
  raise("TypeError", std::string(what) + " must be integers, not '" + type_name(v) + "'");
}

std::vector<Value> Interp::to_vector(const Value& v) {
  switch (v.kind()) {
    case VK::List:
    case VK::Tuple:
      return items_of(v);
    case VK::Range: {
      auto* r = v.as<RangeObj>();
      int64_t n = r->length();
      check_heap_budget(mul_sat(uint64_t(std::max<int64_t>(n, 0)), sizeof(Value)));
      std::vector<Value> out;
      out.reserve(n);
      for (int64_t i = 0, x = r->start; i < n; ++i, x += r->step) out.push_back(Value::integer(x));
      return out;
    }
    case VK::Str: {
      const std::string& s = str_of(v);
      std::vector<Value> out;
      if (v.as<StrObj>()->bytes) {
        for (unsigned char c : s) out.push_back(Value::integer(c));
        return out;
      }
      for (size_t i = 0, n; i < s.size(); i += n) {
        n = utf8::seq_len((unsigned char)s[i]);
        out.push_back(make_str(s.substr(i, n)));
      }
      return out;
    }
    case VK::Dict:
    case VK::Set:
      return v.as<DictObj>()->keys();
    case VK::Class: {
      auto* cls = v.as<ClassObj>();
      if (!cls->is_enum) break;
      std::vector<Value> out;
      for (Sym s : cls->order) {
        const Value& m = cls->attrs[s];
        if (m.is(VK::Instance) && m.as<InstanceObj>()->cls.obj() == cls) out.push_back(m);
      }
      return out;
    }
    case VK::Instance: {
      Value m;
      if (try_get_attr(v, S::__iter__, &m)) return to_vector(call0(m, cur_site_));
      if (try_get_attr(v, S::__getitem__, &m)) {
        std::vector<Value> out;
        for (int64_t i = 0;; ++i) {
          step();
          Value idx = Value::integer(i);
          CallArgs ca{&idx, 1, nullptr, 0, cur_site_};
          try {
            out.push_back(call(m, ca));
          } catch (PyError& e) {
            if (e.type == "IndexError" || e.type == "StopIteration") break;
            throw;
          }
        }
        return out;
      }
      break;
    }
    case VK::Opaque:
      opaque_used(v);
    case VK::Other:
      if (as_ndarray(v)) return ndarray_rows(v);
      if (auto* it = dynamic_cast<IteratorObj*>(v.obj())) {  // the rest of an iterator, which it exhausts
        std::vector<Value> rest(it->items.begin() + long(it->pos), it->items.end());
        it->pos = it->items.size();
        return rest;
      }
      break;
    default:
      break;
  }
  raise("TypeError", "'" + type_name(v) + "' object is not iterable");
}

}  // namespace nkisim::frontend
