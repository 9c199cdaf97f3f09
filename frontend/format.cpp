// format.cpp - the format-spec mini-language (f"{x:>8.2f}", format(), str.format) and printf-style '%'.
#include <cmath>
#include <cstdio>

#include "frontend/interp.h"
#include "frontend/lexer.h"
#include "frontend/utf8.h"

namespace nkisim::frontend {
namespace {

struct Spec {
  std::string fill = " ";
  char align = 0;
  char sign = '-';
  bool alt = false;
  bool zero = false;
  int width = -1;
  char grouping = 0;
  int precision = -1;
  char type = 0;
};

bool is_align(char c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

Spec parse_spec(const std::string& s) {
  Spec sp;
  size_t i = 0;
  auto bad = [&] { raise("ValueError", "Invalid format specifier '" + s + "'"); };
  // fill may be a multi-byte character
  size_t clen = s.empty() ? 1 : utf8::seq_len((unsigned char)s[0]);
  if (s.size() > clen && is_align(s[clen])) {
    sp.fill = s.substr(0, clen);
    sp.align = s[clen];
    i = clen + 1;
  } else if (!s.empty() && is_align(s[0])) {
    sp.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == 'z') ++i;
  if (i < s.size() && s[i] == '#') {
    sp.alt = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    sp.zero = true;
    ++i;
  }
  if (i < s.size() && isdigit((unsigned char)s[i])) {
    sp.width = 0;
    while (i < s.size() && isdigit((unsigned char)s[i])) {
      sp.width = sp.width * 10 + (s[i++] - '0');
      if (sp.width > 100000) bad();
    }
  }
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !isdigit((unsigned char)s[i])) raise("ValueError", "Format specifier missing precision");
    sp.precision = 0;
    while (i < s.size() && isdigit((unsigned char)s[i])) {
      sp.precision = sp.precision * 10 + (s[i++] - '0');
      if (sp.precision > 1000) bad();
    }
  }
  if (i < s.size()) sp.type = s[i++];
  if (i != s.size()) bad();
  if (sp.zero && !sp.align) {
    sp.fill = "0";
    sp.align = '=';
  }
  return sp;
}

size_t display_len(const std::string& s) { return utf8::length(s); }

// The first `precision` code points of s (all of s when precision < 0).
std::string truncate_chars(const std::string& s, int precision) {
  if (precision < 0 || utf8::length(s) <= size_t(precision)) return s;
  return s.substr(0, utf8::offsets(s)[precision]);
}

std::string group(const std::string& digits, char sep, int every) {
  if (!sep) return digits;
  std::string out;
  int n = int(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % every == 0) out += sep;
    out += digits[i];
  }
  return out;
}

// Pads sign+body to the width per the alignment (default: `dflt`).
std::string pad(const Spec& sp, const std::string& sign, const std::string& body, char dflt) {
  std::string all = sign + body;
  if (sp.width < 0 || int(display_len(all)) >= sp.width) return all;
  size_t n = sp.width - display_len(all);
  char align = sp.align ? sp.align : dflt;
  auto fill = [&](size_t k) {
    std::string f;
    for (size_t i = 0; i < k; ++i) f += sp.fill;
    return f;
  };
  switch (align) {
    case '<':
      return all + fill(n);
    case '^':
      return fill(n / 2) + all + fill(n - n / 2);
    case '=':
      return sign + fill(n) + body;
    default:
      return fill(n) + all;
  }
}

std::string fmt_float_body(double v, char type, int prec, bool alt) {
  if (std::isnan(v)) return type >= 'A' && type <= 'Z' ? "NAN" : "nan";
  if (std::isinf(v)) return type >= 'A' && type <= 'Z' ? "INF" : "inf";
  char buf[512];
  char cfmt[16];
  std::snprintf(cfmt, sizeof cfmt, "%%%s.*%c", alt ? "#" : "", type);
  std::snprintf(buf, sizeof buf, cfmt, prec, v);
  return buf;
}

std::string format_number(const Value& v, const Spec& sp0) {
  Spec sp = sp0;
  char type = sp.type;
  bool is_int = v.is_int_like();
  if (is_int && (type == 0 || type == 'd' || type == 'n' || type == 'b' || type == 'o' || type == 'x' || type == 'X' ||
                 type == 'c')) {
    if (sp.precision >= 0) raise("ValueError", "Precision not allowed in integer format specifier");
    int64_t i = v.i();
    if (type == 'c') {
      std::string ch;
      append_utf8(ch, uint32_t(i));
      return pad(sp, "", ch, '<');
    }
    uint64_t mag = i < 0 ? uint64_t(0) - uint64_t(i) : uint64_t(i);
    std::string digits;
    int base = type == 'b' ? 2 : type == 'o' ? 8 : (type == 'x' || type == 'X') ? 16 : 10;
    const char* dig = type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    if (mag == 0) digits = "0";
    while (mag) {
      digits.insert(digits.begin(), dig[mag % base]);
      mag /= base;
    }
    digits = group(digits, sp.grouping, base == 10 ? 3 : 4);
    std::string sign = i < 0 ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
    if (sp.alt && base != 10) sign += base == 2 ? "0b" : base == 8 ? "0o" : (type == 'X' ? "0X" : "0x");
    return pad(sp, sign, digits, '>');
  }
  if (!v.is_number()) raise("ValueError", "Unknown format code for object of type '" + type_name(v) + "'");
  double d = v.num();
  std::string sign = std::signbit(d) && !std::isnan(d) ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  d = std::fabs(d);
  std::string body;
  switch (type) {
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      body = fmt_float_body(d, type, sp.precision < 0 ? 6 : sp.precision, sp.alt);
      break;
    case '%':
      body = fmt_float_body(d * 100, 'f', sp.precision < 0 ? 6 : sp.precision, sp.alt) + "%";
      break;
    case 0:
    case 'n':
      if (sp.precision < 0)
        body = is_int ? std::to_string(v.i() < 0 ? -v.i() : v.i()) : float_repr(d);
      else {
        body = fmt_float_body(d, 'g', sp.precision == 0 ? 1 : sp.precision, sp.alt);
        if (!is_int && body.find_first_of(".einf") == std::string::npos) body += ".0";
      }
      break;
    default:
      raise("ValueError", std::string("Unknown format code '") + type + "' for object of type '" + type_name(v) + "'");
  }
  if (sp.grouping) {
    size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = group(body.substr(0, end), sp.grouping, 3) + body.substr(end);
  }
  return pad(sp, sign, body, '>');
}

}  // namespace

std::string Interp::format(const Value& v, const std::string& spec) {
  if (spec.empty()) return str(v);
  if (v.is(VK::Instance)) {
    Value m;
    if (v.as<InstanceObj>()->cls.as<ClassObj>()->lookup(intern("__format__")) &&
        try_get_attr(v, intern("__format__"), &m)) {
      Value arg = make_str(spec);
      CallArgs a{&arg, 1, nullptr, 0, current_site()};
      return str(call(m, a));
    }
  }
  Spec sp = parse_spec(spec);
  if (v.is_number() && !(v.is(VK::Bool) && (sp.type == 's' || sp.type == 0) && sp.precision < 0 && false))
    return format_number(v, sp);
  if (v.is(VK::Str) || sp.type == 's' || sp.type == 0) {
    if (sp.type && sp.type != 's')
      raise("ValueError",
            std::string("Unknown format code '") + sp.type + "' for object of type '" + type_name(v) + "'");
    if (!v.is(VK::Str) && !v.is(VK::DType) && !v.is(VK::Buffer) && !v.is(VK::Enum))
      raise("TypeError", "unsupported format string passed to " + type_name(v) + ".__format__");
    std::string s = str(v);
    s = truncate_chars(s, sp.precision);
    if (sp.align == '=') raise("ValueError", "'=' alignment not allowed in string format specifier");
    return pad(sp, "", s, '<');
  }
  raise("TypeError", "unsupported format string passed to " + type_name(v) + ".__format__");
}

// printf-style formatting: "%d of %s" % (a, b)
std::string percent_format(Interp& in, const std::string& fmt, const Value& args) {
  std::vector<Value> list;
  bool is_map = args.is(VK::Dict);
  if (args.is(VK::Tuple))
    list = items_of(args);
  else
    list.push_back(args);
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) raise("ValueError", "incomplete format");
    if (fmt[i] == '%') {
      out += '%';
      continue;
    }
    Value arg;
    bool have = false;
    if (fmt[i] == '(') {
      size_t e = fmt.find(')', i);
      if (e == std::string::npos || !is_map) raise("TypeError", "format requires a mapping");
      Value* v = args.as<DictObj>()->find(make_str(fmt.substr(i + 1, e - i - 1)));
      if (!v) raise("KeyError", fmt.substr(i + 1, e - i - 1));
      arg = *v;
      have = true;
      i = e + 1;
    }
    Spec sp;
    for (; i < fmt.size(); ++i) {
      char c = fmt[i];
      if (c == '-')
        sp.align = '<';
      else if (c == '+')
        sp.sign = '+';
      else if (c == ' ')
        sp.sign = sp.sign == '+' ? '+' : ' ';
      else if (c == '#')
        sp.alt = true;
      else if (c == '0')
        sp.zero = true;
      else
        break;
    }
    auto number = [&](int& dst) {
      if (i < fmt.size() && fmt[i] == '*') {
        if (next >= list.size()) raise("TypeError", "not enough arguments for format string");
        dst = int(in.to_index(list[next++], "* width"));
        ++i;
        return;
      }
      if (i < fmt.size() && isdigit((unsigned char)fmt[i])) {
        dst = 0;
        while (i < fmt.size() && isdigit((unsigned char)fmt[i])) dst = dst * 10 + (fmt[i++] - '0');
      }
    };
    number(sp.width);
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      sp.precision = 0;
      number(sp.precision);
    }
    if (i >= fmt.size()) raise("ValueError", "incomplete format");
    char t = fmt[i];
    if (!have) {
      if (next >= list.size()) raise("TypeError", "not enough arguments for format string");
      arg = list[next++];
    }
    if (sp.zero && sp.align != '<') {
      sp.fill = "0";
      sp.align = '=';
    }
    if (!sp.align) sp.align = '>';
    switch (t) {
      case 's':
      case 'r':
      case 'a': {
        std::string s = truncate_chars(t == 's' ? in.str(arg) : in.repr(arg), sp.precision);
        Spec ss = sp;
        ss.fill = " ";
        if (ss.align == '=') ss.align = '>';
        out += pad(ss, "", s, '>');
        break;
      }
      case 'd':
      case 'i':
      case 'u': {
        if (!arg.is_number()) raise("TypeError", "%d format: a real number is required, not " + type_name(arg));
        Value iv = arg.is(VK::Float) ? Value::integer(int64_t(std::trunc(arg.f()))) : arg;
        sp.type = 'd';
        int prec = sp.precision;
        sp.precision = -1;
        std::string s = format_number(iv, sp);
        (void)prec;
        out += s;
        break;
      }
      case 'x':
      case 'X':
      case 'o':
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'c':
        if (!arg.is_number())
          raise("TypeError", std::string("%") + t + " format: a number is required, not " + type_name(arg));
        sp.type = t;
        if ((t == 'x' || t == 'X' || t == 'o') && arg.is(VK::Float))
          raise("TypeError", "%x format: an integer is required, not float");
        if ((t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G') && arg.is_int_like())
          arg = Value::floating(double(arg.i()));
        out += format_number(arg, sp);
        break;
      default:
        raise("ValueError", std::string("unsupported format character '") + t + "'");
    }
  }
  if (!is_map && next < list.size() && args.is(VK::Tuple))
    raise("TypeError", "not all arguments converted during string formatting");
  return out;
}

}  // namespace nkisim::frontend
