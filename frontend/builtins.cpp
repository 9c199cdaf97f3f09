// builtins.cpp - Python built-in functions and exception classes (the standard-library modules kernels
// import are in stdlib.cpp).
#include <algorithm>
#include <cmath>

#include "frontend/builtin_util.h"
#include "frontend/interp.h"
#include "frontend/ndarray.h"
#include "frontend/lexer.h"
#include "frontend/nki.h"
#include "frontend/utf8.h"

namespace nkisim::frontend {
namespace {

using namespace detail;

Value b_range(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 1, 3);
  int64_t start = 0, stop, step = 1;
  if (a.npos == 1)
    stop = in.to_index(a.pos[0], "range() arguments");
  else {
    start = in.to_index(a.pos[0], "range() arguments");
    stop = in.to_index(a.pos[1], "range() arguments");
    if (a.npos == 3) step = in.to_index(a.pos[2], "range() arguments");
  }
  if (step == 0) raise("ValueError", "range() arg 3 must not be zero");
  return make<RangeObj>(start, stop, step);
}

Value b_iter(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("iter", a, 1, 1);
  if (a.pos[0].is(VK::Other) && dynamic_cast<IteratorObj*>(a.pos[0].obj())) return a.pos[0];
  return make<IteratorObj>(in.to_vector(a.pos[0]));
}
Value b_next(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("next", a, 1, 2);
  auto* it = a.pos[0].is(VK::Other) ? dynamic_cast<IteratorObj*>(a.pos[0].obj()) : nullptr;
  if (!it) raise("TypeError", "'" + type_name(a.pos[0]) + "' object is not an iterator");
  if (it->pos < it->items.size()) return it->items[it->pos++];
  if (a.npos == 2) return a.pos[1];
  raise("StopIteration", "");
}

Value b_len(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("len", a, 1, 1);
  const Value& v = a.pos[0];
  switch (v.kind()) {
    case VK::Str: {
      if (v.as<StrObj>()->bytes) return Value::integer(int64_t(str_of(v).size()));
      return Value::integer(int64_t(utf8::length(str_of(v))));
    }
    case VK::List:
    case VK::Tuple:
      return Value::integer(int64_t(items_of(v).size()));
    case VK::Dict:
    case VK::Set:
      return Value::integer(int64_t(v.as<DictObj>()->live_count));
    case VK::Range:
      return Value::integer(v.as<RangeObj>()->length());
    case VK::Tensor:
      return Value::integer(v.as<TensorObj>()->view.dims.empty() ? 0 : v.as<TensorObj>()->view.dims[0].count);
    case VK::Instance: {
      Value m;
      if (in.try_get_attr(v, S::__len__, &m)) return in.call0(m, a.site);
      break;
    }
    case VK::Class:
      if (v.as<ClassObj>()->is_enum) return Value::integer(int64_t(in.to_vector(v).size()));
      break;
    case VK::Other:
      if (auto* nd = as_ndarray(v)) {
        if (nd->shape.empty()) raise("TypeError", "len() of unsized object");
        return Value::integer(nd->shape[0]);
      }
      break;
    default:
      break;
  }
  raise("TypeError", "object of type '" + type_name(v) + "' has no len()");
}

Value min_max(Interp& in, CallArgs& a, bool is_max, const char* name) {
  only_kwargs(name, a, {"key", "default"});
  if (a.npos == 0) raise("TypeError", std::string(name) + " expected at least 1 argument, got 0");
  std::vector<Value> items = a.npos == 1 ? in.to_vector(a.pos[0]) : std::vector<Value>(a.pos, a.pos + a.npos);
  const Value* key = kwarg(a, "key");
  if (items.empty()) {
    if (const Value* d = kwarg(a, "default")) return *d;
    raise("ValueError", std::string(name) + "() arg is an empty sequence");
  }
  auto keyof = [&](const Value& v) {
    if (!key || key->is_none()) return v;
    Value arg = v;
    CallArgs ca{&arg, 1, nullptr, 0, a.site};
    return in.call(*key, ca);
  };
  Value best = items[0], best_key = keyof(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = keyof(items[i]);
    if (in.compare(is_max ? CmpKind::Gt : CmpKind::Lt, k, best_key)) {
      best = items[i];
      best_key = k;
    }
  }
  return best;
}
Value b_min(Interp& in, const BuiltinObj&, CallArgs& a) { return min_max(in, a, false, "min"); }
Value b_max(Interp& in, const BuiltinObj&, CallArgs& a) { return min_max(in, a, true, "max"); }

Value b_abs(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("abs", a, 1, 1);
  const Value& v = a.pos[0];
  if (v.is_int_like()) {
    if (v.i() == INT64_MIN) raise("OverflowError", "integer overflow in abs()");
    return Value::integer(v.i() < 0 ? -v.i() : v.i());
  }
  if (v.is(VK::Float)) return Value::floating(std::fabs(v.f()));
  raise("TypeError", "bad operand type for abs(): '" + type_name(v) + "'");
}

Value parse_int(const std::string& text, int base) {
  std::string s;
  for (char c : text)
    if (c != '_') s += c;
  size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  auto bad = [&] {
    raise("ValueError", "invalid literal for int() with base " + std::to_string(base) + ": '" + text + "'");
  };
  if (b == std::string::npos) bad();
  s = s.substr(b, e - b + 1);
  bool neg = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  if (base == 0 || base == 16 || base == 8 || base == 2) {
    if (s.size() > i + 1 && s[i] == '0') {
      char p = char(s[i + 1] | 0x20);
      int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
      if (pb && (base == 0 || base == pb)) {
        base = pb;
        i += 2;
      }
    }
    if (base == 0) base = 10;
  }
  if (i >= s.size()) bad();
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    int d = isdigit((unsigned char)c) ? c - '0' : isalpha((unsigned char)c) ? (c | 0x20) - 'a' + 10 : 99;
    if (d >= base) bad();
    v = v * base + d;
    if (v > (unsigned __int128)INT64_MAX + 1) raise("OverflowError", "int() result does not fit in 64 bits");
  }
  if (!neg && v > (unsigned __int128)INT64_MAX) raise("OverflowError", "int() result does not fit in 64 bits");
  return Value::integer(neg ? int64_t(-(__int128)v) : int64_t(v));
}

Value b_int(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("int", a, {"base"});
  if (a.npos == 0) return Value::integer(0);
  const Value& v = a.pos[0];
  const Value* basev = a.npos > 1 ? &a.pos[1] : kwarg(a, "base");
  if (basev) {
    if (!v.is(VK::Str)) raise("TypeError", "int() can't convert non-string with explicit base");
    return parse_int(str_of(v), int(in.to_index(*basev, "int() base")));
  }
  if (v.is_int_like()) return Value::integer(v.i());
  if (v.is(VK::Float)) return Value::integer(float_to_int(v.f()));
  if (v.is(VK::Str)) return parse_int(str_of(v), 10);
  if (v.is(VK::Instance)) {
    Value m;
    if (in.try_get_attr(v, intern("__int__"), &m)) return in.call0(m, a.site);
  }
  raise("TypeError", "int() argument must be a string or a number, not '" + type_name(v) + "'");
}

Value b_float(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("float", a, 0, 1);
  if (a.npos == 0) return Value::floating(0.0);
  const Value& v = a.pos[0];
  if (v.is_number()) return Value::floating(v.num());
  if (v.is(VK::Str)) {
    std::string s;
    for (char c : str_of(v))
      if (c != '_') s += c;
    size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
    if (b != std::string::npos) s = s.substr(b, e - b + 1);
    std::string l = s;
    for (auto& c : l) c = char(tolower(c));
    if (l == "inf" || l == "+inf" || l == "infinity" || l == "+infinity") return Value::floating(INFINITY);
    if (l == "-inf" || l == "-infinity") return Value::floating(-INFINITY);
    if (l == "nan" || l == "+nan" || l == "-nan") return Value::floating(NAN);
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    if (s.empty() || !end || *end || l.find_first_of("xp") != std::string::npos)
      raise("ValueError", "could not convert string to float: '" + str_of(v) + "'");
    return Value::floating(d);
  }
  raise("TypeError", "float() argument must be a string or a real number, not '" + type_name(v) + "'");
}

Value b_str(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("str", a, 0, 1);
  return a.npos ? make_str(in.str(a.pos[0])) : make_str("");
}
Value b_repr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("repr", a, 1, 1);
  return make_str(in.repr(a.pos[0]));
}
Value b_bool(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("bool", a, 0, 1);
  return Value::boolean(a.npos && in.truthy(a.pos[0]));
}
Value b_tuple(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("tuple", a, 0, 1);
  if (a.npos && a.pos[0].is(VK::Tuple)) return a.pos[0];
  return make_tuple(a.npos ? in.to_vector(a.pos[0]) : std::vector<Value>{});
}
Value b_list(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("list", a, 0, 1);
  return make_list(a.npos ? in.to_vector(a.pos[0]) : std::vector<Value>{});
}
Value b_set(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("set", a, 0, 1);
  Value s = make<DictObj>(VK::Set);
  if (a.npos)
    for (auto& v : in.to_vector(a.pos[0])) s.as<DictObj>()->set(v, Value());
  return s;
}
Value b_dict(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("dict", a, 0, 1, true);
  Value d = make<DictObj>();
  auto* dict = d.as<DictObj>();
  if (a.npos) {
    if (a.pos[0].is(VK::Dict)) {
      for (auto& e : a.pos[0].as<DictObj>()->entries)
        if (e.live) dict->set(e.key, e.value);
    } else {
      for (auto& item : in.to_vector(a.pos[0])) {
        auto kv = in.to_vector(item);
        if (kv.size() != 2)
          raise("ValueError",
                "dictionary update sequence element has length " + std::to_string(kv.size()) + "; 2 is required");
        dict->set(kv[0], kv[1]);
      }
    }
  }
  for (size_t i = 0; i < a.nkw; ++i) dict->set(make_str(sym_str(a.kw[i].first)), a.kw[i].second);
  return d;
}

Value b_isinstance(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("isinstance", a, 2, 2);
  return Value::boolean(in.isinstance(a.pos[0], a.pos[1]));
}
Value b_issubclass(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("issubclass", a, 2, 2);
  if (!a.pos[0].is(VK::Class)) raise("TypeError", "issubclass() arg 1 must be a class");
  std::vector<Value> classes = a.pos[1].is(VK::Tuple) ? items_of(a.pos[1]) : std::vector<Value>{a.pos[1]};
  for (auto& c : classes)
    if (c.is(VK::Class) && a.pos[0].as<ClassObj>()->is_subclass_of(c.as<ClassObj>())) return Value::boolean(true);
  return Value::boolean(false);
}

Value b_divmod(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("divmod", a, 2, 2);
  return make_tuple({in.binop(BinKind::FloorDiv, a.pos[0], a.pos[1]), in.binop(BinKind::Mod, a.pos[0], a.pos[1])});
}

Value b_round(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("round", a, {"ndigits"});
  if (a.npos < 1 || a.npos > 2) raise("TypeError", "round() takes 1 or 2 arguments");
  const Value& v = a.pos[0];
  const Value* nd = a.npos > 1 ? &a.pos[1] : kwarg(a, "ndigits");
  if (nd && nd->is_none()) nd = nullptr;
  if (v.is_int_like()) {
    if (!nd) return Value::integer(v.i());
    int64_t n = in.to_index(*nd, "ndigits");
    if (n >= 0) return Value::integer(v.i());
    int64_t p = 1;
    for (int64_t k = 0; k < -n && p < INT64_MAX / 10; ++k) p *= 10;
    int64_t q = v.i() / p, r = v.i() % p;
    if (r < 0) {
      r += p;
      --q;
    }
    if (2 * r > p || (2 * r == p && (q & 1))) ++q;
    return Value::integer(q * p);
  }
  if (!v.is(VK::Float)) raise("TypeError", "type " + type_name(v) + " doesn't define __round__ method");
  if (!nd) return Value::integer(float_to_int(std::nearbyint(v.f())));
  int64_t n = in.to_index(*nd, "ndigits");
  if (!std::isfinite(v.f())) return v;
  char buf[64];
  if (n >= 0 && n < 30) {
    std::snprintf(buf, sizeof buf, "%.*f", int(n), v.f());
    return Value::floating(std::strtod(buf, nullptr));
  }
  double p = std::pow(10.0, double(-n));
  return Value::floating(std::nearbyint(v.f() / p) * p);
}

Value b_sum(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("sum", a, {"start"});
  if (a.npos < 1 || a.npos > 2) raise("TypeError", "sum() takes 1 or 2 arguments");
  Value acc = a.npos > 1 ? a.pos[1] : kwarg(a, "start") ? *kwarg(a, "start") : Value::integer(0);
  if (acc.is(VK::Str)) raise("TypeError", "sum() can't sum strings [use ''.join(seq) instead]");
  for (auto& v : in.to_vector(a.pos[0])) acc = in.binop(BinKind::Add, acc, v);
  return acc;
}

Value b_enumerate(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("enumerate", a, {"start"});
  if (a.npos < 1 || a.npos > 2) raise("TypeError", "enumerate() takes 1 or 2 arguments");
  int64_t start = a.npos > 1          ? in.to_index(a.pos[1], "start")
                  : kwarg(a, "start") ? in.to_index(*kwarg(a, "start"), "start")
                                      : 0;
  std::vector<Value> out;
  for (auto& v : in.to_vector(a.pos[0])) out.push_back(make_tuple({Value::integer(start++), v}));
  return make_list(std::move(out));
}

Value b_zip(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("zip", a, {"strict"});
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (size_t i = 0; i < a.npos; ++i) {
    seqs.push_back(in.to_vector(a.pos[i]));
    n = std::min(n, seqs.back().size());
  }
  if (seqs.empty()) n = 0;
  if (const Value* st = kwarg(a, "strict"); st && in.truthy(*st))
    for (auto& s : seqs)
      if (s.size() != n) raise("ValueError", "zip() arguments have different lengths");
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> t;
    for (auto& s : seqs) t.push_back(s[k]);
    out.push_back(make_tuple(std::move(t)));
  }
  return make_list(std::move(out));
}

Value b_sorted(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("sorted", a, {"key", "reverse"});
  nargs("sorted", a, 1, 1, true);
  std::vector<Value> items = in.to_vector(a.pos[0]);
  const Value* key = kwarg(a, "key");
  bool rev = kwarg(a, "reverse") && in.truthy(*kwarg(a, "reverse"));
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& v : items) {
    Value k = v;
    if (key && !key->is_none()) {
      Value arg = v;
      CallArgs ca{&arg, 1, nullptr, 0, a.site};
      k = in.call(*key, ca);
    }
    keyed.emplace_back(k, v);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return rev ? in.compare(CmpKind::Lt, y.first, x.first) : in.compare(CmpKind::Lt, x.first, y.first);
  });
  std::vector<Value> out;
  for (auto& kv : keyed) out.push_back(kv.second);
  return make_list(std::move(out));
}

Value b_reversed(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("reversed", a, 1, 1);
  std::vector<Value> items = in.to_vector(a.pos[0]);
  std::reverse(items.begin(), items.end());
  return make_list(std::move(items));
}

Value b_any_all(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 1, 1);
  bool is_any = self.data == 1;
  for (auto& v : in.to_vector(a.pos[0]))
    if (in.truthy(v) == is_any) return Value::boolean(is_any);
  return Value::boolean(!is_any);
}

Value b_print(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("print", a, {"sep", "end", "file", "flush"});
  std::string sep = " ", end = "\n";
  if (const Value* s = kwarg(a, "sep"); s && !s->is_none()) sep = in.str(*s);
  if (const Value* e = kwarg(a, "end"); e && !e->is_none()) end = in.str(*e);
  std::string text;
  for (size_t i = 0; i < a.npos; ++i) {
    if (i) text += sep;
    text += in.str(a.pos[i]);
  }
  if (end != "\n") text += end;
  in.print_line(text, a.site);
  return Value();
}

Value b_hash(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("hash", a, 1, 1);
  return Value::integer(int64_t(hash_value(a.pos[0]) >> 1));
}
Value b_id(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("id", a, 1, 1);
  return Value::integer(a.pos[0].is_heap() ? int64_t(reinterpret_cast<uintptr_t>(a.pos[0].obj()) >> 1)
                                           : a.pos[0].raw_bits());
}

Value b_type(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("type", a, 1, 1);
  const Value& v = a.pos[0];
  if (v.is(VK::Instance)) return v.as<InstanceObj>()->cls;
  auto& g = in.builtins.as<ModuleObj>()->globals;
  const char* name = v.is(VK::Str) && v.as<StrObj>()->bytes ? "bytes" : vk_type_name(v.kind());
  auto it = g.find(intern(name));
  if (it != g.end()) return it->second;
  return in.builtin(
      name,
      [](Interp&, const BuiltinObj& b, CallArgs&) -> Value {
        raise("TypeError", "cannot create '" + b.name + "' instances");
      },
      Value(), int64_t(v.kind()));
}

Value b_getattr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("getattr", a, 2, 3);
  if (!a.pos[1].is(VK::Str)) raise("TypeError", "attribute name must be string");
  Value out;
  if (in.try_get_attr(a.pos[0], intern(str_of(a.pos[1])), &out)) return out;
  if (a.npos == 3) return a.pos[2];
  return in.get_attr(a.pos[0], intern(str_of(a.pos[1])));
}
Value b_setattr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("setattr", a, 3, 3);
  if (!a.pos[1].is(VK::Str)) raise("TypeError", "attribute name must be string");
  in.set_attr(a.pos[0], intern(str_of(a.pos[1])), a.pos[2]);
  return Value();
}
// object.__setattr__(obj, name, value): sets the attribute past a frozen dataclass's guard, as CPython's does
// (frozen dataclasses' own __post_init__ and helpers set fields this way).
Value b_object_setattr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("object.__setattr__", a, 3, 3);
  if (!a.pos[1].is(VK::Str)) raise("TypeError", "attribute name must be string");
  if (a.pos[0].is(VK::Instance)) {
    a.pos[0].as<InstanceObj>()->attrs[intern(str_of(a.pos[1]))] = a.pos[2];
    return Value();
  }
  in.set_attr(a.pos[0], intern(str_of(a.pos[1])), a.pos[2]);
  return Value();
}
Value b_hasattr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("hasattr", a, 2, 2);
  if (!a.pos[1].is(VK::Str)) raise("TypeError", "attribute name must be string");
  Value out;
  try {
    return Value::boolean(in.try_get_attr(a.pos[0], intern(str_of(a.pos[1])), &out));
  } catch (PyError& e) {
    if (e.type == "AttributeError") return Value::boolean(false);
    throw;
  }
}
Value b_callable(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("callable", a, 1, 1);
  VK k = a.pos[0].kind();
  Value m;
  bool c = k == VK::Function || k == VK::Builtin || k == VK::BoundMethod || k == VK::Class || k == VK::StaticMethod ||
           (k == VK::Instance && in.try_get_attr(a.pos[0], S::__call__, &m));
  return Value::boolean(c);
}

Value b_map(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("map", a, 2, SIZE_MAX);
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (size_t i = 1; i < a.npos; ++i) {
    seqs.push_back(in.to_vector(a.pos[i]));
    n = std::min(n, seqs.back().size());
  }
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> args;
    for (auto& s : seqs) args.push_back(s[k]);
    CallArgs ca{args.data(), args.size(), nullptr, 0, a.site};
    out.push_back(in.call(a.pos[0], ca));
  }
  return make_list(std::move(out));
}
Value b_filter(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("filter", a, 2, 2);
  std::vector<Value> out;
  for (auto& v : in.to_vector(a.pos[1])) {
    bool keep;
    if (a.pos[0].is_none())
      keep = in.truthy(v);
    else {
      Value arg = v;
      CallArgs ca{&arg, 1, nullptr, 0, a.site};
      keep = in.truthy(in.call(a.pos[0], ca));
    }
    if (keep) out.push_back(v);
  }
  return make_list(std::move(out));
}

Value b_chr(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("chr", a, 1, 1);
  int64_t c = in.to_index(a.pos[0], "chr() argument");
  if (c < 0 || c > 0x10FFFF) raise("ValueError", "chr() arg not in range(0x110000)");
  std::string s;
  append_utf8(s, uint32_t(c));
  return make_str(s);
}
Value b_ord(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("ord", a, 1, 1);
  if (!a.pos[0].is(VK::Str))
    raise("TypeError", "ord() expected string of length 1, but " + type_name(a.pos[0]) + " found");
  auto chars = in.to_vector(a.pos[0]);
  if (chars.size() != 1)
    raise("TypeError", "ord() expected a character, but string of length " + std::to_string(chars.size()) + " found");
  const std::string& s = str_of(chars[0]);
  if (a.pos[0].as<StrObj>()->bytes) return chars[0];
  uint32_t cp = (unsigned char)s[0];
  if (s.size() > 1) {
    cp &= s.size() == 2 ? 0x1F : s.size() == 3 ? 0x0F : 0x07;
    for (size_t i = 1; i < s.size(); ++i) cp = (cp << 6) | ((unsigned char)s[i] & 0x3F);
  }
  return Value::integer(cp);
}
Value b_radix(Interp& in, const BuiltinObj& self, CallArgs& a) {
  nargs(self.name.c_str(), a, 1, 1);
  if (!a.pos[0].is_int_like())
    raise("TypeError", "'" + type_name(a.pos[0]) + "' object cannot be interpreted as an integer");
  const char* spec = self.data == 16 ? "#x" : self.data == 8 ? "#o" : "#b";
  return make_str(in.format(Value::integer(a.pos[0].i()), spec));
}
Value b_pow(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("pow", a, 2, 3);
  if (a.npos == 3 && !a.pos[2].is_none()) {
    int64_t base = in.to_index(a.pos[0], "pow()"), e = in.to_index(a.pos[1], "pow()"),
            m = in.to_index(a.pos[2], "pow()");
    if (m == 0) raise("ValueError", "pow() 3rd argument cannot be 0");
    if (e < 0) raise("ValueError", "negative exponents with a modulus are not supported");
    __int128 r = 1, b = ((base % m) + m) % m;
    while (e) {
      if (e & 1) r = r * b % m;
      b = b * b % m;
      e >>= 1;
    }
    return Value::integer(int64_t(r));
  }
  return in.binop(BinKind::Pow, a.pos[0], a.pos[1]);
}
Value b_format(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("format", a, 1, 2);
  return make_str(in.format(a.pos[0], a.npos > 1 ? in.str(a.pos[1]) : ""));
}
Value b_slice(Interp& in, const BuiltinObj&, CallArgs& a) {
  nargs("slice", a, 1, 3);
  if (a.npos == 1) return make<SliceObj>(Value(), a.pos[0], Value());
  return make<SliceObj>(a.pos[0], a.pos[1], a.npos > 2 ? a.pos[2] : Value());
}

Value b_wrapper(Interp& in, const BuiltinObj& self, CallArgs& a) {  // staticmethod/classmethod/property
  nargs(self.name.c_str(), a, 1, 1);
  return make<WrapperObj>(VK(self.data), a.pos[0]);
}

Value b_object_init(Interp&, const BuiltinObj&, CallArgs&) { return Value(); }

// super(): the MRO of the calling method's class, after that class, bound to its first argument.
Value b_super(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (a.npos == 2) return make<SuperObj>(a.pos[0], a.pos[1]);
  FrameObj* fr = in.current_frame;
  if (!fr || !fr->func || fr->slots.empty()) raise("RuntimeError", "super(): no arguments");
  auto* fn = static_cast<FunctionObj*>(fr->func);
  if (!fn->owner_class.is(VK::Class)) raise("RuntimeError", "super(): __class__ cell not found");
  return make<SuperObj>(fn->owner_class, fr->slots[0]);
}

}  // namespace

void install_stdlib(Interp& in);  // stdlib.cpp

void install_builtins(Interp& in) {
  Value bm = make<ModuleObj>("builtins");
  in.builtins = bm;
  auto* b = bm.as<ModuleObj>();
  auto def = [&](ModuleObj* m, const char* name, BuiltinFn fn, int64_t data = 0) {
    m->globals[intern(name)] = in.builtin(name, fn, Value(), data);
  };
  def(b, "range", b_range, int64_t(VK::Range));
  def(b, "len", b_len);
  def(b, "min", b_min);
  def(b, "max", b_max);
  def(b, "abs", b_abs);
  def(b, "int", b_int, int64_t(VK::Int));
  def(b, "float", b_float, int64_t(VK::Float));
  def(b, "str", b_str, int64_t(VK::Str));
  def(b, "repr", b_repr);
  def(b, "bool", b_bool, int64_t(VK::Bool));
  def(b, "tuple", b_tuple, int64_t(VK::Tuple));
  def(b, "list", b_list, int64_t(VK::List));
  def(b, "dict", b_dict, int64_t(VK::Dict));
  def(b, "set", b_set, int64_t(VK::Set));
  def(b, "frozenset", b_set, int64_t(VK::Set));
  def(b, "isinstance", b_isinstance);
  def(b, "issubclass", b_issubclass);
  def(b, "divmod", b_divmod);
  def(b, "round", b_round);
  def(b, "sum", b_sum);
  def(b, "enumerate", b_enumerate);
  def(b, "zip", b_zip);
  def(b, "sorted", b_sorted);
  def(b, "reversed", b_reversed);
  def(b, "any", b_any_all, 1);
  def(b, "all", b_any_all, 0);
  def(b, "print", b_print);
  def(b, "iter", b_iter);
  def(b, "next", b_next);
  def(b, "hash", b_hash);
  def(b, "id", b_id);
  def(b, "type", b_type);
  def(b, "getattr", b_getattr);
  def(b, "setattr", b_setattr);
  def(b, "hasattr", b_hasattr);
  def(b, "callable", b_callable);
  def(b, "map", b_map);
  def(b, "filter", b_filter);
  def(b, "chr", b_chr);
  def(b, "ord", b_ord);
  def(b, "hex", b_radix, 16);
  def(b, "oct", b_radix, 8);
  def(b, "bin", b_radix, 2);
  def(b, "pow", b_pow);
  def(b, "format", b_format);
  def(b, "slice", b_slice, int64_t(VK::Slice));
  def(b, "staticmethod", b_wrapper, int64_t(VK::StaticMethod));
  def(b, "classmethod", b_wrapper, int64_t(VK::ClassMethod));
  def(b, "property", b_wrapper, int64_t(VK::Property));
  def(b, "super", b_super);
  b->globals[intern("Ellipsis")] = Value::ellipsis();
  b->globals[intern("NotImplemented")] = make<OpaqueObj>("NotImplemented");
  b->globals[S::__name__] = make_str("builtins");

  Value obj = make<ClassObj>("object");
  obj.as<ClassObj>()->mro.push_back(obj.as<ClassObj>());
  obj.as<ClassObj>()->builtin = true;
  obj.as<ClassObj>()->set(S::__init__, in.builtin("object.__init__", b_object_init));
  obj.as<ClassObj>()->set(intern("__setattr__"), in.builtin("object.__setattr__", b_object_setattr));
  b->globals[intern("object")] = obj;

  // Exception hierarchy.
  auto exc = [&](const char* name, const char* base) {
    Value c = make<ClassObj>(name);
    auto* cls = c.as<ClassObj>();
    cls->is_exception = true;
    cls->mro.push_back(cls);
    if (base) {
      auto* bc = b->globals[intern(base)].as<ClassObj>();
      cls->bases.push_back(Value(bc));
      for (ClassObj* m : bc->mro) cls->mro.push_back(m);
    }
    b->globals[intern(name)] = c;
  };
  exc("BaseException", nullptr);
  exc("Exception", "BaseException");
  exc("ArithmeticError", "Exception");
  exc("ZeroDivisionError", "ArithmeticError");
  exc("OverflowError", "ArithmeticError");
  exc("LookupError", "Exception");
  exc("IndexError", "LookupError");
  exc("KeyError", "LookupError");
  exc("ValueError", "Exception");
  exc("TypeError", "Exception");
  exc("NameError", "Exception");
  exc("UnboundLocalError", "NameError");
  exc("AttributeError", "Exception");
  exc("AssertionError", "Exception");
  exc("ImportError", "Exception");
  exc("ModuleNotFoundError", "ImportError");
  exc("RuntimeError", "Exception");
  exc("NotImplementedError", "RuntimeError");
  exc("RecursionError", "RuntimeError");
  exc("StopIteration", "Exception");
  exc("MemoryError", "Exception");
  exc("SyntaxError", "Exception");
  exc("FrozenInstanceError", "AttributeError");

  install_stdlib(in);
}

}  // namespace nkisim::frontend
