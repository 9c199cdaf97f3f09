// value.cpp - heap bookkeeping, dict hashing, equality, repr/str of built-in values.
#include "frontend/value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "frontend/nki.h"

namespace nkisim::frontend {

thread_local Heap* tl_heap = nullptr;
thread_local bool tl_teardown = false;

namespace {
constexpr uint64_t kObjectBytes = 64;  // what every heap object counts at least (header, allocator overhead)
}  // namespace

Object::Object(VK k) : kind(k), heap(tl_heap) {
  if (heap) {
    check_heap_budget(kObjectBytes);
    charged = kObjectBytes;
    heap->bytes += charged;
    next = heap->head;
    if (next) next->prev = this;
    heap->head = this;
    ++heap->live;
  }
}

Object::~Object() {
  if (heap && !tl_teardown) {
    if (prev)
      prev->next = next;
    else
      heap->head = next;
    if (next) next->prev = prev;
    --heap->live;
    heap->bytes -= charged;
  }
}

static void check_budget(const Heap* h, uint64_t more) {
  if (!h || more <= h->budget - std::min(h->bytes, h->budget)) return;
  throw Error("compile-time memory budget exceeded: this value needs " + std::to_string(more) +
              " bytes more, over the budget of " + std::to_string(h->budget) + " bytes of compile-time values" +
              " (raise the limit with --max-compile-memory N)");
}

void check_heap_budget(uint64_t more) { check_budget(tl_heap, more); }

void Object::account(uint64_t bytes) {
  if (!heap) return;
  if (bytes > charged) check_budget(heap, bytes - charged);
  heap->bytes = heap->bytes - charged + bytes;
  charged = bytes;
}

std::string Object::repr() const { return "<" + type_name() + " object>"; }
std::string Object::type_name() const { return vk_type_name(kind); }

Heap::~Heap() {
  TeardownGuard g;
  while (head) {
    Object* o = head;
    head = o->next;
    delete o;
  }
  live = 0;
}

TeardownGuard::TeardownGuard() : saved(tl_teardown) { tl_teardown = true; }
TeardownGuard::~TeardownGuard() { tl_teardown = saved; }

HeapScope::HeapScope(Heap& h) : saved(tl_heap) { tl_heap = &h; }
HeapScope::~HeapScope() { tl_heap = saved; }

const char* vk_type_name(VK k) {
  switch (k) {
    case VK::Unbound:
      return "unbound";
    case VK::None:
      return "NoneType";
    case VK::Bool:
      return "bool";
    case VK::Int:
      return "int";
    case VK::Float:
      return "float";
    case VK::Ellipsis:
      return "ellipsis";
    case VK::DType:
      return "dtype";
    case VK::Buffer:
      return "buffer";
    case VK::NkiOp:
      return "function";
    case VK::Enum:
      return "enum";
    case VK::Str:
      return "str";
    case VK::Tuple:
      return "tuple";
    case VK::List:
      return "list";
    case VK::Dict:
      return "dict";
    case VK::Set:
      return "set";
    case VK::Slice:
      return "slice";
    case VK::Range:
      return "range";
    case VK::Function:
      return "function";
    case VK::Builtin:
      return "builtin_function_or_method";
    case VK::BoundMethod:
      return "method";
    case VK::Module:
      return "module";
    case VK::Class:
      return "type";
    case VK::Instance:
      return "object";
    case VK::Tensor:
      return "tensor";
    case VK::Opaque:
      return "object";
    case VK::Property:
      return "property";
    case VK::StaticMethod:
      return "staticmethod";
    case VK::ClassMethod:
      return "classmethod";
    case VK::Frame:
      return "frame";
    case VK::Other:
      return "object";
  }
  return "object";
}

std::string type_name(const Value& v) {
  if (v.is(VK::Str) && v.as<StrObj>()->bytes) return "bytes";
  if (v.is_heap()) return v.obj()->type_name();
  return vk_type_name(v.kind());
}

void raise(const char* type, const std::string& msg) { throw PyError(type, msg); }

Value make_str(std::string s) { return make<StrObj>(std::move(s)); }
Value make_tuple(std::vector<Value> v) { return make<SeqObj>(VK::Tuple, std::move(v)); }
Value make_list(std::vector<Value> v) { return make<SeqObj>(VK::List, std::move(v)); }

const std::string& str_of(const Value& v) { return v.as<StrObj>()->s; }
std::vector<Value>& items_of(const Value& v) { return v.as<SeqObj>()->items; }

std::vector<Value> subscript_keys(const Value& key) {
  return key.is(VK::Tuple) ? items_of(key) : std::vector<Value>{key};
}

int64_t RangeObj::length() const {
  if (step > 0 && start < stop) return (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) return (start - stop - 1) / (-step) + 1;
  return 0;
}

// ---------------------------------------------------------------- hashing and equality

static size_t mix(size_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

static bool float_as_int(double d, int64_t* out) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
  if (std::floor(d) != d) return false;
  *out = int64_t(d);
  return true;
}

size_t hash_value(const Value& v) {
  switch (v.kind()) {
    case VK::None:
      return 0x9e3779b9;
    case VK::Ellipsis:
      return 0x7f4a7c15;
    case VK::Bool:
    case VK::Int:
      return mix(size_t(v.i()));
    case VK::Float: {
      int64_t i;
      if (float_as_int(v.f(), &i)) return mix(size_t(i));
      return mix(std::hash<double>()(v.f()));
    }
    case VK::Str: {
      auto* s = v.as<StrObj>();
      if (!s->hash) s->hash = std::hash<std::string>()(s->s) | 1;
      return s->hash;
    }
    case VK::DType:
      return std::hash<std::string_view>()(isa::dtype_name(v.dtype_v())) | 1;
    case VK::Buffer:
    case VK::NkiOp:
    case VK::Enum:
      return mix(size_t(v.raw_bits()) * 31 + size_t(v.kind()));
    case VK::Tuple: {
      size_t h = 0x345678;
      for (auto& x : items_of(v)) h = mix(h * 1000003 ^ hash_value(x));
      return h;
    }
    case VK::List:
    case VK::Dict:
    case VK::Set:
      raise("TypeError", "unhashable type: '" + type_name(v) + "'");
    case VK::Instance:
      return instance_hash(v);
    default:
      return mix(size_t(reinterpret_cast<uintptr_t>(v.obj())));
  }
}

bool basic_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is(VK::Float) || b.is(VK::Float)) {
      if (a.is(VK::Float) && b.is(VK::Float)) return a.f() == b.f();
      const Value& fl = a.is(VK::Float) ? a : b;
      const Value& in = a.is(VK::Float) ? b : a;
      int64_t i;
      return float_as_int(fl.f(), &i) && i == in.i();
    }
    return a.i() == b.i();
  }
  if (a.is(VK::DType) && b.is(VK::Str)) return isa::dtype_name(a.dtype_v()) == str_of(b);
  if (b.is(VK::DType) && a.is(VK::Str)) return isa::dtype_name(b.dtype_v()) == str_of(a);
  if (a.is(VK::Instance) || b.is(VK::Instance)) return instance_equal(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case VK::None:
    case VK::Ellipsis:
    case VK::Unbound:
      return true;
    case VK::DType:
    case VK::Buffer:
    case VK::NkiOp:
    case VK::Enum:
      return a.raw_bits() == b.raw_bits();
    case VK::Str: {
      auto *x = a.as<StrObj>(), *y = b.as<StrObj>();
      return x == y || (x->bytes == y->bytes && x->s == y->s);
    }
    case VK::Tuple:
    case VK::List: {
      auto &x = items_of(a), &y = items_of(b);
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!basic_equal(x[i], y[i])) return false;
      return true;
    }
    case VK::Dict:
    case VK::Set: {
      auto *x = a.as<DictObj>(), *y = b.as<DictObj>();
      if (x->live_count != y->live_count) return false;
      for (auto& e : x->entries) {
        if (!e.live) continue;
        Value* o = y->find(e.key);
        if (!o || !basic_equal(e.value, *o)) return false;
      }
      return true;
    }
    case VK::Range: {
      auto *x = a.as<RangeObj>(), *y = b.as<RangeObj>();
      int64_t n = x->length();
      if (n != y->length()) return false;
      if (n == 0) return true;
      if (x->start != y->start) return false;
      return n == 1 || x->step == y->step;
    }
    case VK::Slice: {
      auto *x = a.as<SliceObj>(), *y = b.as<SliceObj>();
      return basic_equal(x->start, y->start) && basic_equal(x->stop, y->stop) && basic_equal(x->step, y->step);
    }
    default:
      return a.obj() == b.obj();
  }
}

bool is_truthy_basic(const Value& v, bool* known) {
  *known = true;
  switch (v.kind()) {
    case VK::None:
    case VK::Unbound:
      return false;
    case VK::Bool:
    case VK::Int:
      return v.i() != 0;
    case VK::Float:
      return v.f() != 0.0;
    case VK::Str:
      return !str_of(v).empty();
    case VK::Tuple:
    case VK::List:
      return !items_of(v).empty();
    case VK::Dict:
    case VK::Set:
      return v.as<DictObj>()->live_count != 0;
    case VK::Range:
      return v.as<RangeObj>()->length() != 0;
    case VK::Instance:
    case VK::Opaque:
      *known = false;
      return true;
    default:
      return true;
  }
}

// ---------------------------------------------------------------- dict

int32_t DictObj::lookup(const Value& key, size_t h) const {
  if (table.empty()) return -1;
  size_t mask = table.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    int32_t t = table[i];
    if (t == -1) return -1;
    if (t >= 0 && entries[t].hash == h && basic_equal(entries[t].key, key)) return t;
  }
}

Value* DictObj::find(const Value& key) {
  size_t h = hash_value(key);
  int32_t t = lookup(key, h);
  return t >= 0 ? &entries[t].value : nullptr;
}

void DictObj::rebuild() {
  std::vector<Entry> live;
  live.reserve(live_count + 1);
  for (auto& e : entries)
    if (e.live) live.push_back(std::move(e));
  entries = std::move(live);
  size_t cap = 8;
  while (cap < entries.size() * 3) cap <<= 1;
  check_heap_budget(mul_sat(cap, sizeof(int32_t)));
  table.assign(cap, -1);
  account(sizeof(DictObj) + entries.capacity() * sizeof(Entry) + table.capacity() * sizeof(int32_t));
  for (size_t k = 0; k < entries.size(); ++k) {
    size_t mask = cap - 1;
    size_t i = entries[k].hash & mask;
    while (table[i] != -1) i = (i + 1) & mask;
    table[i] = int32_t(k);
  }
}

void DictObj::set(const Value& key, Value v) {
  size_t h = hash_value(key);
  int32_t t = lookup(key, h);
  if (t >= 0) {
    entries[t].value = std::move(v);
    return;
  }
  if ((entries.size() + 1) * 3 > table.size() * 2 || table.empty()) {
    entries.push_back({key, std::move(v), h, true});
    ++live_count;
    rebuild();
    return;
  }
  entries.push_back({key, std::move(v), h, true});
  ++live_count;
  size_t mask = table.size() - 1;
  size_t i = h & mask;
  while (table[i] >= 0) i = (i + 1) & mask;
  table[i] = int32_t(entries.size() - 1);
}

bool DictObj::erase(const Value& key, Value* out) {
  size_t h = hash_value(key);
  if (table.empty()) return false;
  size_t mask = table.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    int32_t t = table[i];
    if (t == -1) return false;
    if (t >= 0 && entries[t].hash == h && basic_equal(entries[t].key, key)) {
      if (out) *out = entries[t].value;
      entries[t].live = false;
      entries[t].key = Value();
      entries[t].value = Value();
      table[i] = -2;
      --live_count;
      return true;
    }
  }
}

void DictObj::clear() {
  entries.clear();
  table.clear();
  live_count = 0;
}

std::vector<Value> DictObj::keys() const {
  std::vector<Value> out;
  out.reserve(live_count);
  for (auto& e : entries)
    if (e.live) out.push_back(e.key);
  return out;
}

// ---------------------------------------------------------------- repr / str

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  int prec = 1;
  for (; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf = [-]d.ddde[+-]XX
  std::string s = buf;
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (exp >= -5 + 1 && exp < 16) {
    if (exp >= 0) {
      std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      while (int(ip.size()) < exp + 1) ip += '0';
      std::string fp = digits.size() > size_t(exp + 1) ? digits.substr(exp + 1) : "0";
      out += ip + "." + fp;
    } else {
      out += "0." + std::string(-exp - 1, '0') + digits;
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return out;
}

static std::string repr_string(const std::string& s, bool bytes) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char q = has_single && !has_double ? '"' : '\'';
  std::string out = bytes ? "b" : "";
  out += q;
  for (unsigned char c : s) {
    if (c == q || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else
      out += char(c);
  }
  out += q;
  return out;
}

std::string repr_container(const Value& v, std::string (*elem)(const Value&, void*), void* ctx) {
  if (v.is(VK::Tuple) || v.is(VK::List)) {
    auto& it = items_of(v);
    bool tup = v.is(VK::Tuple);
    std::string out = tup ? "(" : "[";
    for (size_t i = 0; i < it.size(); ++i) {
      if (i) out += ", ";
      out += elem(it[i], ctx);
    }
    if (tup && it.size() == 1) out += ",";
    return out + (tup ? ")" : "]");
  }
  auto* d = v.as<DictObj>();
  bool set = v.is(VK::Set);
  if (set && d->live_count == 0) return "set()";
  std::string out = "{";
  bool first = true;
  for (auto& e : d->entries) {
    if (!e.live) continue;
    if (!first) out += ", ";
    first = false;
    out += elem(e.key, ctx);
    if (!set) out += ": " + elem(e.value, ctx);
  }
  return out + "}";
}

std::string repr_basic(const Value& v) {
  switch (v.kind()) {
    case VK::Unbound:
      return "<unbound>";
    case VK::None:
      return "None";
    case VK::Bool:
      return v.b() ? "True" : "False";
    case VK::Int:
      return std::to_string(v.i());
    case VK::Float:
      return float_repr(v.f());
    case VK::Ellipsis:
      return "Ellipsis";
    case VK::DType:
      return std::string(isa::dtype_name(v.dtype_v()));
    case VK::Str:
      return repr_string(str_of(v), v.as<StrObj>()->bytes);
    case VK::Tuple:
    case VK::List:
    case VK::Dict:
    case VK::Set:
      return repr_container(v, [](const Value& x, void*) { return repr_basic(x); }, nullptr);
    case VK::Slice: {
      auto* s = v.as<SliceObj>();
      return "slice(" + repr_basic(s->start) + ", " + repr_basic(s->stop) + ", " + repr_basic(s->step) + ")";
    }
    case VK::Range: {
      auto* r = v.as<RangeObj>();
      std::string out = "range(" + std::to_string(r->start) + ", " + std::to_string(r->stop);
      if (r->step != 1) out += ", " + std::to_string(r->step);
      return out + ")";
    }
    default:
      if (v.is_heap()) return v.obj()->repr();
      return nki_repr(v);
  }
}

}  // namespace nkisim::frontend
