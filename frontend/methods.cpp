// methods.cpp - methods and attributes of built-in types: str, list, tuple, dict, set, int, float, range,
// slice, and super() proxies.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "frontend/builtin_util.h"
#include "frontend/interp.h"
#include "frontend/ndarray.h"
#include "frontend/lexer.h"
#include "frontend/utf8.h"

namespace nkisim::frontend {
namespace {

void want(const BuiltinObj& b, CallArgs& a, size_t lo, size_t hi) {
  if (a.nkw) raise("TypeError", b.name + "() takes no keyword arguments");
  if (a.npos < lo || a.npos > hi)
    raise("TypeError", b.name + "() takes " + (lo == hi ? std::to_string(lo) : "at most " + std::to_string(hi)) +
                           " argument" + (hi == 1 ? "" : "s") + " (" + std::to_string(a.npos) + " given)");
}
const std::string& want_str(const Value& v, const BuiltinObj& b) {
  if (!v.is(VK::Str)) raise("TypeError", b.name + "() argument must be str, not " + type_name(v));
  return str_of(v);
}
Value str_like(const Value& self, std::string s) { return make<StrObj>(std::move(s), self.as<StrObj>()->bytes); }

// Maps every code point of `s` (bytes objects: every byte) through f(code point, index).
template <class F>
std::string map_chars(const std::string& s, bool bytes, F f) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0, n, k = 0; i < s.size(); i += n, ++k) {
    uint32_t c = bytes ? (n = 1, (unsigned char)s[i]) : utf8::decode(s, i, &n);
    uint32_t m = f(c, k);
    if (bytes || m < 0x80)
      out += char(m);
    else
      append_utf8(out, m);
  }
  return out;
}
template <class P>
bool all_chars(const std::string& s, bool bytes, P p) {
  for (size_t i = 0, n; i < s.size(); i += n)
    if (!p(bytes ? (n = 1, (unsigned char)s[i]) : utf8::decode(s, i, &n))) return false;
  return true;
}
// Character counts and offsets: code points for str, bytes for bytes.
size_t char_len(const std::string& s, bool bytes) { return bytes ? s.size() : utf8::length(s); }
size_t byte_offset(const std::string& s, bool bytes, int64_t chars) {
  if (bytes || utf8::is_ascii(s)) return size_t(chars);
  size_t i = 0;
  for (int64_t k = 0; k < chars && i < s.size(); ++k) i += utf8::seq_len((unsigned char)s[i]);
  return i;
}
int64_t char_index(const std::string& s, bool bytes, size_t byte) {
  return bytes ? int64_t(byte) : int64_t(utf8::length(std::string_view(s).substr(0, byte)));
}

// .start / .stop / .step of ranges and slices.
bool start_stop_step(Sym name, const Value& start, const Value& stop, const Value& step, Value* out) {
  if (name != S::start && name != S::stop && name != S::step) return false;
  *out = name == S::start ? start : name == S::stop ? stop : step;
  return true;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<std::string> split(const std::string& s, const Value* sepv, int64_t maxsplit, bool from_right) {
  std::vector<std::string> out;
  if (!sepv || sepv->is_none()) {
    // whitespace split
    std::vector<std::pair<size_t, size_t>> words;
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && is_ws(s[i])) ++i;
      if (i >= s.size()) break;
      size_t b = i;
      while (i < s.size() && !is_ws(s[i])) ++i;
      words.emplace_back(b, i);
    }
    if (maxsplit < 0 || int64_t(words.size()) <= maxsplit + 1) {
      for (auto& [b, e] : words) out.push_back(s.substr(b, e - b));
      return out;
    }
    if (!from_right) {
      for (int64_t k = 0; k < maxsplit; ++k) out.push_back(s.substr(words[k].first, words[k].second - words[k].first));
      size_t rest = words[maxsplit].first;
      size_t end = s.find_last_not_of(" \t\n\r\f\v");
      out.push_back(s.substr(rest, end + 1 - rest));
    } else {
      size_t n = words.size();
      size_t first = s.find_first_not_of(" \t\n\r\f\v");
      out.push_back(s.substr(first, words[n - maxsplit - 1].second - first));
      for (size_t k = n - maxsplit; k < n; ++k)
        out.push_back(s.substr(words[k].first, words[k].second - words[k].first));
    }
    return out;
  }
  const std::string& sep = str_of(*sepv);
  if (sep.empty()) raise("ValueError", "empty separator");
  std::vector<size_t> hits;
  for (size_t p = s.find(sep); p != std::string::npos; p = s.find(sep, p + sep.size())) hits.push_back(p);
  if (maxsplit >= 0 && int64_t(hits.size()) > maxsplit) {
    if (from_right)
      hits.erase(hits.begin(), hits.end() - maxsplit);
    else
      hits.resize(maxsplit);
  }
  size_t b = 0;
  for (size_t h : hits) {
    out.push_back(s.substr(b, h - b));
    b = h + sep.size();
  }
  out.push_back(s.substr(b));
  return out;
}

// str.format: {} {0} {name} {name.attr} {0[key]} {!r} {:spec} with {{ }} escapes.
std::string str_format(Interp& in, const std::string& fmt, CallArgs& a) {
  std::string out;
  size_t auto_idx = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      raise("ValueError", "Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    int depth = 1;
    size_t j = i + 1;
    for (; j < fmt.size() && depth; ++j) {
      if (fmt[j] == '{')
        ++depth;
      else if (fmt[j] == '}')
        --depth;
    }
    if (depth) raise("ValueError", "expected '}' before end of string");
    std::string field = fmt.substr(i + 1, j - i - 2);
    i = j - 1;
    std::string spec, conv;
    size_t colon = std::string::npos, bang = std::string::npos;
    for (size_t k = 0, br = 0; k < field.size(); ++k) {
      if (field[k] == '[')
        ++br;
      else if (field[k] == ']')
        --br;
      else if (!br && field[k] == '!' && bang == std::string::npos)
        bang = k;
      else if (!br && field[k] == ':') {
        colon = k;
        break;
      }
    }
    if (colon != std::string::npos) spec = field.substr(colon + 1), field = field.substr(0, colon);
    if (bang != std::string::npos) conv = field.substr(bang + 1), field = field.substr(0, bang);
    size_t e = field.find_first_of(".[");
    std::string head = field.substr(0, e);
    Value v;
    if (head.empty()) {
      if (auto_idx >= a.npos)
        raise("IndexError",
              "Replacement index " + std::to_string(auto_idx) + " out of range for positional args tuple");
      v = a.pos[auto_idx++];
    } else if (std::all_of(head.begin(), head.end(), ::isdigit)) {
      size_t k = std::stoul(head);
      if (k >= a.npos) raise("IndexError", "Replacement index " + head + " out of range for positional args tuple");
      v = a.pos[k];
    } else {
      bool found = false;
      for (size_t k = 0; k < a.nkw; ++k)
        if (sym_name(a.kw[k].first) == head) {
          v = a.kw[k].second;
          found = true;
        }
      if (!found) raise("KeyError", "'" + head + "'");
    }
    while (e != std::string::npos && e < field.size()) {
      if (field[e] == '.') {
        size_t n = field.find_first_of(".[", e + 1);
        v = in.get_attr(v, intern(field.substr(e + 1, n == std::string::npos ? std::string::npos : n - e - 1)));
        e = n;
      } else {
        size_t close = field.find(']', e);
        if (close == std::string::npos) raise("ValueError", "Missing ']' in format string");
        std::string key = field.substr(e + 1, close - e - 1);
        Value kv = !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit) ? Value::integer(std::stoll(key))
                                                                                  : make_str(key);
        v = in.get_item(v, kv);
        e = close + 1 < field.size() ? close + 1 : std::string::npos;
      }
    }
    if (conv == "r" || conv == "a")
      v = make_str(in.repr(v));
    else if (conv == "s")
      v = make_str(in.str(v));
    else if (!conv.empty())
      raise("ValueError", "Unknown conversion specifier " + conv);
    if (spec.find('{') != std::string::npos) spec = str_format(in, spec, a);
    out += in.format(v, spec);
  }
  return out;
}

Value str_method(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const Value& self = b.self;
  const std::string& s = str_of(self);
  const bool bytes = self.as<StrObj>()->bytes;
  Sym m = Sym(b.data);
  switch (m) {
    case S::join: {
      want(b, a, 1, 1);
      std::string out;
      auto items = in.to_vector(a.pos[0]);
      uint64_t total = mul_sat(s.size(), items.size());
      for (const Value& v : items) total += v.is(VK::Str) ? str_of(v).size() : 0;
      check_heap_budget(total);
      for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is(VK::Str))
          raise("TypeError",
                "sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
        if (i) out += s;
        out += str_of(items[i]);
      }
      return str_like(self, std::move(out));
    }
    case S::split:
    case S::rsplit: {
      if (a.npos > 2) raise("TypeError", b.name + "() takes at most 2 arguments");
      const Value* sep = a.npos > 0 ? &a.pos[0] : nullptr;
      int64_t maxsplit = a.npos > 1 ? in.to_index(a.pos[1], "maxsplit") : -1;
      for (size_t k = 0; k < a.nkw; ++k) {
        if (a.kw[k].first == intern("sep"))
          sep = &a.kw[k].second;
        else if (a.kw[k].first == intern("maxsplit"))
          maxsplit = in.to_index(a.kw[k].second, "maxsplit");
        else
          raise("TypeError", b.name + "() got an unexpected keyword argument '" + sym_str(a.kw[k].first) + "'");
      }
      std::vector<Value> out;
      for (auto& p : split(s, sep, maxsplit, m == S::rsplit)) out.push_back(str_like(self, p));
      return make_list(std::move(out));
    }
    case S::strip:
    case S::lstrip:
    case S::rstrip: {
      want(b, a, 0, 1);
      std::string chars = a.npos && !a.pos[0].is_none() ? want_str(a.pos[0], b) : std::string(" \t\n\r\f\v");
      if (!bytes && !(utf8::is_ascii(chars) && utf8::is_ascii(s))) {  // strip whole code points
        std::vector<size_t> off = utf8::offsets(s);
        auto in_set = [&](size_t k) { return chars.find(s.substr(off[k], off[k + 1] - off[k])) != std::string::npos; };
        size_t lo = 0, hi = off.size() - 1;
        if (m != S::rstrip)
          while (lo < hi && in_set(lo)) ++lo;
        if (m != S::lstrip)
          while (hi > lo && in_set(hi - 1)) --hi;
        return str_like(self, s.substr(off[lo], off[hi] - off[lo]));
      }
      size_t lo = 0, hi = s.size();
      if (m != S::rstrip)
        while (lo < hi && chars.find(s[lo]) != std::string::npos) ++lo;
      if (m != S::lstrip)
        while (hi > lo && chars.find(s[hi - 1]) != std::string::npos) --hi;
      return str_like(self, s.substr(lo, hi - lo));
    }
    case S::upper:
    case S::lower:
    case S::casefold:
    case S::swapcase: {
      want(b, a, 0, 0);
      return str_like(self, map_chars(s, bytes, [&](uint32_t c, size_t) {
                        if (bytes && c >= 0x80) return c;
                        return m == S::upper      ? utf8::to_upper(c)
                               : m == S::swapcase ? (utf8::is_upper(c) ? utf8::to_lower(c) : utf8::to_upper(c))
                                                  : utf8::to_lower(c);
                      }));
    }
    case S::title:
    case S::capitalize: {
      want(b, a, 0, 0);
      bool start = true;
      return str_like(self, map_chars(s, bytes, [&](uint32_t c, size_t k) {
                        if (bytes && c >= 0x80) return c;
                        if (m == S::capitalize) return k == 0 ? utf8::to_upper(c) : utf8::to_lower(c);
                        uint32_t r = start ? utf8::to_upper(c) : utf8::to_lower(c);
                        start = !utf8::is_alpha(c);
                        return r;
                      }));
    }
    case S::startswith:
    case S::endswith: {
      want(b, a, 1, 3);
      std::vector<Value> opts = a.pos[0].is(VK::Tuple) ? items_of(a.pos[0]) : std::vector<Value>{a.pos[0]};
      const int64_t len = int64_t(char_len(s, bytes));
      int64_t start = a.npos > 1 ? in.to_index(a.pos[1], "start") : 0;
      int64_t end = a.npos > 2 ? in.to_index(a.pos[2], "end") : len;
      if (start < 0) start = std::max<int64_t>(0, start + len);
      if (end < 0) end = std::max<int64_t>(0, end + len);
      end = std::min<int64_t>(end, len);
      size_t bs = byte_offset(s, bytes, start), be = byte_offset(s, bytes, end);
      std::string sub = start <= end ? s.substr(bs, be - bs) : std::string();
      for (auto& o : opts) {
        const std::string& p = want_str(o, b);
        if (m == S::startswith ? sub.compare(0, p.size(), p) == 0 && sub.size() >= p.size()
                               : sub.size() >= p.size() && sub.compare(sub.size() - p.size(), p.size(), p) == 0)
          return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    case S::replace: {
      want(b, a, 2, 3);
      const std::string& old = want_str(a.pos[0], b);
      const std::string& rep = want_str(a.pos[1], b);
      int64_t count = a.npos > 2 ? in.to_index(a.pos[2], "count") : -1;
      std::string out;
      uint64_t hits = 0;  // the result's size before making it
      if (old.empty()) hits = s.size() + 1;
      else
        for (size_t p = s.find(old); p != std::string::npos && (count < 0 || int64_t(hits) < count);
             p = s.find(old, p + old.size()))
          ++hits;
      if (count >= 0) hits = std::min<uint64_t>(hits, uint64_t(count));
      check_heap_budget(s.size() + mul_sat(hits, rep.size()));
      if (old.empty()) {
        for (size_t i = 0; i <= s.size(); ++i) {
          if (count < 0 || int64_t(i) < count) out += rep;
          if (i < s.size()) out += s[i];
        }
        return str_like(self, out);
      }
      size_t p = 0;
      for (int64_t n = 0; count < 0 || n < count; ++n) {
        size_t h = s.find(old, p);
        if (h == std::string::npos) break;
        out += s.substr(p, h - p) + rep;
        p = h + old.size();
      }
      out += s.substr(p);
      return str_like(self, out);
    }
    case S::find:
    case S::rfind:
    case S::index:
    case S::count: {
      want(b, a, 1, 3);
      const std::string& sub = want_str(a.pos[0], b);
      int64_t n = int64_t(char_len(s, bytes));
      int64_t start = a.npos > 1 && !a.pos[1].is_none() ? in.to_index(a.pos[1], "start") : 0;
      int64_t end = a.npos > 2 && !a.pos[2].is_none() ? in.to_index(a.pos[2], "end") : n;
      if (start < 0) start = std::max<int64_t>(0, start + n);
      if (end < 0) end = std::max<int64_t>(0, end + n);
      end = std::min(end, n);
      const size_t bs = byte_offset(s, bytes, start), be = byte_offset(s, bytes, end);
      if (m == S::count) {
        if (start > end) return Value::integer(0);
        std::string hay = s.substr(bs, be - bs);
        if (sub.empty()) return Value::integer(int64_t(char_len(hay, bytes)) + 1);
        int64_t c = 0;
        for (size_t p = hay.find(sub); p != std::string::npos; p = hay.find(sub, p + sub.size())) ++c;
        return Value::integer(c);
      }
      size_t pos = std::string::npos;
      if (start <= end) {
        std::string hay = s.substr(bs, be - bs);
        size_t p = m == S::rfind ? hay.rfind(sub) : hay.find(sub);
        if (p != std::string::npos) pos = p + bs;
      }
      if (pos == std::string::npos) {
        if (m == S::index) raise("ValueError", "substring not found");
        return Value::integer(-1);
      }
      return Value::integer(char_index(s, bytes, pos));
    }
    case S::format:
      return make_str(str_format(in, s, a));
    case S::isdigit:
    case S::isdecimal:
    case S::isalpha:
    case S::isalnum:
    case S::isspace:
    case S::isupper:
    case S::islower:
    case S::isidentifier: {
      want(b, a, 0, 0);
      if (s.empty()) return Value::boolean(false);
      if (m == S::isidentifier)
        return Value::boolean(
            (isalpha((unsigned char)s[0]) || s[0] == '_') &&
            std::all_of(s.begin(), s.end(), [](char c) { return isalnum((unsigned char)c) || c == '_'; }));
      if (m == S::isupper || m == S::islower) {
        bool cased = false;
        bool ok = all_chars(s, bytes, [&](uint32_t c) {
          if (bytes && c >= 0x80) return true;
          if (utf8::is_upper(c) || utf8::is_lower(c)) cased = true;
          return !(m == S::isupper ? utf8::is_lower(c) : utf8::is_upper(c));
        });
        return Value::boolean(ok && cased);
      }
      return Value::boolean(all_chars(s, bytes, [&](uint32_t c) {
        bool alpha = !(bytes && c >= 0x80) && utf8::is_alpha(c), digit = c >= '0' && c <= '9';
        return m == S::isalpha ? alpha : m == S::isalnum ? alpha || digit : m == S::isspace ? c < 0x80 && is_ws(char(c)) : digit;
      }));
    }
    case S::zfill: {
      want(b, a, 1, 1);
      int64_t w = in.to_index(a.pos[0], "width");
      const int64_t len = int64_t(char_len(s, bytes));
      if (len >= w) return self;
      check_heap_budget(uint64_t(w) + s.size());
      size_t signs = !s.empty() && (s[0] == '-' || s[0] == '+');
      return str_like(self, s.substr(0, signs) + std::string(w - len, '0') + s.substr(signs));
    }
    case S::ljust:
    case S::rjust:
    case S::center: {
      want(b, a, 1, 2);
      int64_t w = in.to_index(a.pos[0], "width");
      std::string fill = a.npos > 1 ? want_str(a.pos[1], b) : " ";
      if (char_len(fill, bytes) != 1) raise("TypeError", "The fill character must be exactly one character long");
      const int64_t len = int64_t(char_len(s, bytes));
      if (len >= w) return self;
      size_t n = w - len;
      check_heap_budget(mul_sat(n, fill.size()) + s.size());
      auto rep = [&](size_t k) {
        std::string r;
        for (size_t i = 0; i < k; ++i) r += fill;
        return r;
      };
      if (m == S::ljust) return str_like(self, s + rep(n));
      if (m == S::rjust) return str_like(self, rep(n) + s);
      size_t left = n / 2 + (n & w & 1);
      return str_like(self, rep(left) + s + rep(n - left));
    }
    case S::splitlines: {
      want(b, a, 0, 1);
      std::vector<Value> out;
      size_t p = 0;
      while (p < s.size()) {
        size_t e = s.find_first_of("\r\n", p);
        if (e == std::string::npos) {
          out.push_back(str_like(self, s.substr(p)));
          break;
        }
        out.push_back(str_like(self, s.substr(p, e - p)));
        p = e + ((s[e] == '\r' && e + 1 < s.size() && s[e + 1] == '\n') ? 2 : 1);
      }
      return make_list(std::move(out));
    }
    case S::partition:
    case S::rpartition: {
      want(b, a, 1, 1);
      const std::string& sep = want_str(a.pos[0], b);
      size_t p = m == S::partition ? s.find(sep) : s.rfind(sep);
      if (p == std::string::npos)
        return m == S::partition ? make_tuple({self, str_like(self, ""), str_like(self, "")})
                                 : make_tuple({str_like(self, ""), str_like(self, ""), self});
      return make_tuple(
          {str_like(self, s.substr(0, p)), str_like(self, sep), str_like(self, s.substr(p + sep.size()))});
    }
    case S::removeprefix:
    case S::removesuffix: {
      want(b, a, 1, 1);
      const std::string& x = want_str(a.pos[0], b);
      if (m == S::removeprefix && s.compare(0, x.size(), x) == 0 && s.size() >= x.size())
        return str_like(self, s.substr(x.size()));
      if (m == S::removesuffix && s.size() >= x.size() && !x.empty() &&
          s.compare(s.size() - x.size(), x.size(), x) == 0)
        return str_like(self, s.substr(0, s.size() - x.size()));
      return self;
    }
    case S::encode:
      return make<StrObj>(s, true);
    case S::decode:
      return make<StrObj>(s, false);
    case S::expandtabs: {
      std::string out;
      for (char c : s) {
        if (c == '\t')
          out += std::string(8 - out.size() % 8, ' ');
        else
          out += c;
      }
      return str_like(self, out);
    }
    default:
      raise("AttributeError", "'str' object has no attribute '" + sym_str(m) + "'");
  }
}

Value seq_method(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const Value& self = b.self;
  auto& items = items_of(self);
  Sym m = Sym(b.data);
  switch (m) {
    case S::append:
      want(b, a, 1, 1);
      items.push_back(a.pos[0]);
      self.as<SeqObj>()->account_items();
      return Value();
    case S::extend: {
      want(b, a, 1, 1);
      auto add = in.to_vector(a.pos[0]);
      check_heap_budget(add.size() * sizeof(Value));
      items.insert(items.end(), add.begin(), add.end());
      self.as<SeqObj>()->account_items();
      return Value();
    }
    case S::pop: {
      want(b, a, 0, 1);
      if (items.empty()) raise("IndexError", "pop from empty list");
      int64_t i = a.npos ? in.to_index(a.pos[0], "list indices") : -1;
      if (i < 0) i += int64_t(items.size());
      if (i < 0 || i >= int64_t(items.size())) raise("IndexError", "pop index out of range");
      Value v = items[i];
      items.erase(items.begin() + i);
      return v;
    }
    case S::insert: {
      want(b, a, 2, 2);
      int64_t i = in.to_index(a.pos[0], "list indices"), n = int64_t(items.size());
      if (i < 0) i = std::max<int64_t>(0, i + n);
      i = std::min(i, n);
      items.insert(items.begin() + i, a.pos[1]);
      self.as<SeqObj>()->account_items();
      return Value();
    }
    case S::index: {
      want(b, a, 1, 3);
      int64_t n = int64_t(items.size());
      int64_t start = a.npos > 1 ? in.to_index(a.pos[1], "start") : 0,
              end = a.npos > 2 ? in.to_index(a.pos[2], "end") : n;
      if (start < 0) start = std::max<int64_t>(0, start + n);
      if (end < 0) end = std::max<int64_t>(0, end + n);
      for (int64_t i = start; i < std::min(end, n); ++i)
        if (in.equal(items[i], a.pos[0])) return Value::integer(i);
      raise("ValueError", in.repr(a.pos[0]) + " is not in " + (self.is(VK::List) ? "list" : "tuple"));
    }
    case S::remove: {
      want(b, a, 1, 1);
      for (size_t i = 0; i < items.size(); ++i)
        if (in.equal(items[i], a.pos[0])) {
          items.erase(items.begin() + i);
          return Value();
        }
      raise("ValueError", "list.remove(x): x not in list");
    }
    case S::reverse:
      want(b, a, 0, 0);
      std::reverse(items.begin(), items.end());
      return Value();
    case S::sort: {
      if (a.npos) raise("TypeError", "sort() takes no positional arguments");
      Value key, rev;
      for (size_t k = 0; k < a.nkw; ++k) {
        if (a.kw[k].first == S::key)
          key = a.kw[k].second;
        else if (sym_name(a.kw[k].first) == "reverse")
          rev = a.kw[k].second;
        else
          raise("TypeError", "sort() got an unexpected keyword argument '" + sym_str(a.kw[k].first) + "'");
      }
      Value sorted_fn = in.builtins.as<ModuleObj>()->globals[intern("sorted")];
      Value lst = self;
      std::pair<Sym, Value> kws[2] = {{S::key, key}, {intern("reverse"), rev}};
      CallArgs ca{&lst, 1, kws, 2, a.site};
      items = items_of(in.call(sorted_fn, ca));
      return Value();
    }
    case S::count: {
      want(b, a, 1, 1);
      int64_t c = 0;
      for (auto& v : items) c += in.equal(v, a.pos[0]);
      return Value::integer(c);
    }
    case S::copy:
      want(b, a, 0, 0);
      return make_list(items);
    case S::clear:
      want(b, a, 0, 0);
      items.clear();
      return Value();
    default:
      raise("AttributeError", "no attribute '" + sym_str(m) + "'");
  }
}

Value dict_method(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const Value& self = b.self;
  auto* d = self.as<DictObj>();
  Sym m = Sym(b.data);
  bool is_set = self.is(VK::Set);
  switch (m) {
    case S::keys:
      want(b, a, 0, 0);
      return make_list(d->keys());
    case S::values:
    case S::items: {
      want(b, a, 0, 0);
      std::vector<Value> out;
      for (auto& e : d->entries)
        if (e.live) out.push_back(m == S::values ? e.value : make_tuple({e.key, e.value}));
      return make_list(std::move(out));
    }
    case S::get: {
      want(b, a, 1, 2);
      if (Value* v = d->find(a.pos[0])) return *v;
      return a.npos > 1 ? a.pos[1] : Value();
    }
    case S::pop: {
      if (is_set) {
        want(b, a, 0, 0);
        for (auto& e : d->entries)
          if (e.live) {
            Value k = e.key;
            d->erase(k);
            return k;
          }
        raise("KeyError", "'pop from an empty set'");
      }
      want(b, a, 1, 2);
      Value out;
      if (d->erase(a.pos[0], &out)) return out;
      if (a.npos > 1) return a.pos[1];
      raise("KeyError", in.repr(a.pos[0]));
    }
    case S::popitem: {
      want(b, a, 0, 0);
      for (auto it = d->entries.rbegin(); it != d->entries.rend(); ++it)
        if (it->live) {
          Value t = make_tuple({it->key, it->value});
          d->erase(Value(it->key));
          return t;
        }
      raise("KeyError", "'popitem(): dictionary is empty'");
    }
    case S::setdefault: {
      want(b, a, 1, 2);
      if (Value* v = d->find(a.pos[0])) return *v;
      Value dv = a.npos > 1 ? a.pos[1] : Value();
      d->set(a.pos[0], dv);
      return dv;
    }
    case S::update: {
      if (a.npos > 1) raise("TypeError", "update expected at most 1 argument");
      if (a.npos) {
        if (is_set) {
          for (auto& v : in.to_vector(a.pos[0])) d->set(v, Value());
        } else if (a.pos[0].is(VK::Dict)) {
          for (auto& e : a.pos[0].as<DictObj>()->entries)
            if (e.live) d->set(e.key, e.value);
        } else {
          for (auto& item : in.to_vector(a.pos[0])) {
            auto kv = in.to_vector(item);
            if (kv.size() != 2) raise("ValueError", "dictionary update sequence element has wrong length");
            d->set(kv[0], kv[1]);
          }
        }
      }
      for (size_t k = 0; k < a.nkw; ++k) d->set(make_str(sym_str(a.kw[k].first)), a.kw[k].second);
      return Value();
    }
    case S::copy: {
      want(b, a, 0, 0);
      Value c = make<DictObj>(self.kind());
      for (auto& e : d->entries)
        if (e.live) c.as<DictObj>()->set(e.key, e.value);
      return c;
    }
    case S::clear:
      want(b, a, 0, 0);
      d->clear();
      return Value();
    case S::add:
      want(b, a, 1, 1);
      d->set(a.pos[0], Value());
      return Value();
    case S::discard:
      want(b, a, 1, 1);
      d->erase(a.pos[0]);
      return Value();
    case S::remove:
      want(b, a, 1, 1);
      if (!d->erase(a.pos[0])) raise("KeyError", in.repr(a.pos[0]));
      return Value();
    case S::union_:
    case S::intersection:
    case S::difference: {
      Value acc = self;
      for (size_t i = 0; i < a.npos; ++i) {
        Value other = make<DictObj>(VK::Set);
        for (auto& v : in.to_vector(a.pos[i])) other.as<DictObj>()->set(v, Value());
        acc = in.binop(m == S::union_         ? BinKind::BitOr
                       : m == S::intersection ? BinKind::BitAnd
                                              : BinKind::Sub,
                       acc, other);
      }
      return in.binop(BinKind::BitOr, acc, make<DictObj>(VK::Set));  // always a new set
    }
    case S::issubset:
    case S::issuperset: {
      want(b, a, 1, 1);
      Value other = make<DictObj>(VK::Set);
      for (auto& v : in.to_vector(a.pos[0])) other.as<DictObj>()->set(v, Value());
      auto* small = m == S::issubset ? d : other.as<DictObj>();
      auto* big = m == S::issubset ? other.as<DictObj>() : d;
      for (auto& e : small->entries)
        if (e.live && !big->find(e.key)) return Value::boolean(false);
      return Value::boolean(true);
    }
    default:
      raise("AttributeError", "no attribute '" + sym_str(m) + "'");
  }
}

bool one_of(Sym s, std::initializer_list<Sym> l) { return std::find(l.begin(), l.end(), s) != l.end(); }

// numpy scalars (np.float32(x), np.finfo(t).min, np.int32(n)) are plain numbers here, so their .item() -- the
// Python number -- is accepted on every int/float (nki-library: np.finfo(np.float32).min.item()).
bool is_numpy_item(Sym name) { return sym_str(name) == "item"; }

Value numpy_item(Interp&, const BuiltinObj& b, CallArgs& a) {
  want(b, a, 0, 0);
  return b.self;
}

}  // namespace

bool builtin_type_attr(Interp& in, const Value& obj, Sym name, Value* out) {
  auto bind = [&](const char* type, BuiltinFn fn) {
    *out = in.builtin((std::string(type) + "." + sym_str(name)).c_str(), fn, obj, int64_t(name));
    return true;
  };
  switch (obj.kind()) {
    case VK::Str:
      if (one_of(name, {S::join,         S::split,    S::rsplit,     S::strip,        S::lstrip,       S::rstrip,
                        S::upper,        S::lower,    S::startswith, S::endswith,     S::replace,      S::find,
                        S::rfind,        S::index,    S::count,      S::format,       S::isdigit,      S::isalpha,
                        S::isalnum,      S::isupper,  S::islower,    S::isspace,      S::zfill,        S::ljust,
                        S::rjust,        S::center,   S::title,      S::capitalize,   S::splitlines,   S::partition,
                        S::rpartition,   S::encode,   S::decode,     S::removeprefix, S::removesuffix, S::isdecimal,
                        S::isidentifier, S::casefold, S::swapcase,   S::expandtabs}))
        return bind("str", str_method);
      return false;
    case VK::List:
      if (one_of(name, {S::append, S::extend, S::pop, S::insert, S::index, S::remove, S::reverse, S::sort, S::count,
                        S::copy, S::clear}))
        return bind("list", seq_method);
      return false;
    case VK::Tuple:
      if (one_of(name, {S::index, S::count})) return bind("tuple", seq_method);
      return false;
    case VK::Dict:
      if (one_of(name, {S::keys, S::values, S::items, S::get, S::pop, S::popitem, S::setdefault, S::update, S::copy,
                        S::clear}))
        return bind("dict", dict_method);
      return false;
    case VK::Set:
      if (one_of(name, {S::add, S::discard, S::remove, S::pop, S::union_, S::intersection, S::difference, S::issubset,
                        S::issuperset, S::copy, S::clear, S::update}))
        return bind("set", dict_method);
      return false;
    case VK::Int:
    case VK::Bool:
      if (name == S::real) {
        *out = Value::integer(obj.i());
        return true;
      }
      if (name == S::imag) {
        *out = Value::integer(0);
        return true;
      }
      if (is_numpy_item(name)) return bind("int", numpy_item);
      if (name == S::bit_length || name == S::conjugate)
        return bind("int", [](Interp&, const BuiltinObj& b, CallArgs&) -> Value {
          if (Sym(b.data) == S::conjugate) return Value::integer(b.self.i());
          uint64_t v = b.self.i() < 0 ? uint64_t(0) - uint64_t(b.self.i()) : uint64_t(b.self.i());
          int64_t n = 0;
          while (v) {
            ++n;
            v >>= 1;
          }
          return Value::integer(n);
        });
      return false;
    case VK::Float:
      if (name == S::real) {
        *out = obj;
        return true;
      }
      if (name == S::imag) {
        *out = Value::floating(0);
        return true;
      }
      if (is_numpy_item(name)) return bind("float", numpy_item);
      if (name == S::is_integer)
        return bind("float", [](Interp&, const BuiltinObj& b, CallArgs&) -> Value {
          double f = b.self.f();
          return Value::boolean(std::isfinite(f) && f == double(int64_t(f)));
        });
      return false;
    case VK::Range: {
      auto* r = obj.as<RangeObj>();
      if (start_stop_step(name, Value::integer(r->start), Value::integer(r->stop), Value::integer(r->step), out))
        return true;
      if (name == S::index || name == S::count) {
        Value lst = make_list(in.to_vector(obj));
        return builtin_type_attr(in, make_tuple(items_of(lst)), name, out);
      }
      return false;
    }
    case VK::Slice: {
      auto* s = obj.as<SliceObj>();
      if (start_stop_step(name, s->start, s->stop, s->step, out)) return true;
      if (sym_name(name) == "indices") {
        *out = in.builtin("slice.indices", [](Interp& in, const BuiltinObj& b, CallArgs& a) -> Value {
          want(b, a, 1, 1);
          int64_t len = in.to_index(a.pos[0], "slice.indices() length");
          if (len < 0) raise("ValueError", "length should not be negative");
          int64_t start, stop, step;
          slice_indices(in, b.self.as<SliceObj>(), len, &start, &stop, &step);
          return make_tuple({Value::integer(start), Value::integer(stop), Value::integer(step)});
        }, obj);
        return true;
      }
      return false;
    }
    case VK::Other: {
      if (ndarray_attr(in, obj, name, out) || virtual_file_attr(in, obj, name, out)) return true;
      auto* sup = dynamic_cast<SuperObj*>(obj.obj());
      if (!sup) return false;
      ClassObj* start = sup->cls.as<ClassObj>();
      ClassObj* cls = sup->self.is(VK::Instance) ? sup->self.as<InstanceObj>()->cls.as<ClassObj>()
                      : sup->self.is(VK::Class)  ? sup->self.as<ClassObj>()
                                                 : start;
      bool after = false;
      for (ClassObj* c : cls->mro) {
        if (c == start) {
          after = true;
          continue;
        }
        if (!after) continue;
        auto it = c->attrs.find(name);
        if (it == c->attrs.end()) continue;
        const Value& v = it->second;
        if (v.is(VK::Function) || (v.is(VK::Builtin) && sup->self.is(VK::Instance)))
          *out = sup->self.is(VK::Instance) ? make<BoundMethodObj>(sup->self, v) : v;
        else if (v.is(VK::StaticMethod))
          *out = v.as<WrapperObj>()->fn;
        else if (v.is(VK::ClassMethod))
          *out = make<BoundMethodObj>(Value(cls), v.as<WrapperObj>()->fn);
        else
          *out = v;
        return true;
      }
      if (name == S::__init__) {  // object.__init__
        *out = in.builtin("object.__init__", [](Interp&, const BuiltinObj&, CallArgs&) { return Value(); });
        return true;
      }
      return false;
    }
    case VK::Property:
      if (sym_name(name) == "setter") {
        *out = in.builtin(
            "property.setter",
            [](Interp&, const BuiltinObj& b, CallArgs& a) -> Value {
              if (a.npos != 1) raise("TypeError", "setter() takes one argument");
              Value p = make<WrapperObj>(VK::Property, b.self.as<WrapperObj>()->fn);
              p.as<WrapperObj>()->setter = a.pos[0];
              return p;
            },
            obj);
        return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace nkisim::frontend
