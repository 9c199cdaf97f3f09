// asm_parse.cpp - the text assembly parser, the inverse of print_asm (grammar in docs/asm.md).
#include "isa/asm_parse.h"

#include <algorithm>
#include <bitset>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nkisim::isa {
namespace {

struct Token {
  std::string text;      // the token; for a quoted string its unescaped contents
  uint32_t col = 0;      // 1-based column of the first character (the opening quote of a string)
  uint32_t end_col = 0;  // column just past the token
  bool quoted = false;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
int hex_value(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }
// Characters that may follow a number inside an operand, a wait/signal list or a shape.
bool ends_number(char c) {
  for (char d : std::string_view(",[]:+@>=)"))
    if (c == d) return true;
  return false;
}

// activation has both an operand slot and a float parameter named "scale"; the value tells them apart
// (an operand starts with a memory name or is "none"; a float is a number, inf or nan).
bool looks_like_operand(std::string_view v) {
  size_t n = 0;
  while (n < v.size() && is_word(v[n])) ++n;
  const std::string_view w = v.substr(0, n);
  return w == "hbm" || w == "sbuf" || w == "psum" || w == "none" || v.find('@') != std::string_view::npos;
}

class Parser;

// Walks one whitespace-free token (or the value part of key=value), tracking its source column.
class Cursor {
 public:
  Cursor(const Parser& p, std::string_view s, uint32_t col, const char* what) : p_(p), s_(s), col_(col), what_(what) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  uint32_t col() const { return col_ + uint32_t(i_); }
  bool eat(char c) {
    if (done() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool eat_prefix(std::string_view w) {  // consumes w if the rest starts with it
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  std::string_view word() {
    size_t b = i_;
    while (!done() && is_word(s_[i_])) ++i_;
    return s_.substr(b, i_ - b);
  }
  [[noreturn]] void malformed(const std::string& expected) const;
  void expect(char c, const char* where) {
    if (!eat(c)) malformed(std::string("'") + c + "'" + where);
  }
  void expect_end() const {
    if (!done()) malformed("the end of the " + std::string(what_));
  }
  uint64_t unsigned_num(uint64_t max);
  int64_t signed_num();

 private:
  struct Raw {
    bool neg = false, hex = false, overflow = false;
    uint64_t mag = 0;
    uint32_t col = 0;
    std::string_view text;
  };
  Raw number();

  const Parser& p_;
  std::string_view s_;
  size_t i_ = 0;
  uint32_t col_;
  const char* what_;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}
  std::vector<Program> run();
  [[noreturn]] void fail(uint32_t col, const std::string& msg) const { throw Error(msg, SourceLoc{file_, line_, col}); }

 private:
  std::vector<Token> tokenize(std::string_view line) const;
  void directive(const std::vector<Token>& t);
  void core(const std::vector<Token>& t);
  void tensor(const std::vector<Token>& t);
  void location(const std::vector<Token>& t);
  void string_entry(const std::vector<Token>& t);
  void instruction(const std::vector<Token>& t);
  AccessPattern access_pattern(const Token& f, size_t value_pos) const;
  void dyn_offset(Cursor& c, AccessPattern& ap) const;
  float float_value(const Token& f, size_t value_pos) const;
  // One parser per params.def kind; `eq` is npos for a bare flag.
  void need_value(const Token& f, size_t eq) const {
    if (eq == std::string::npos) fail(f.col, "'" + f.text + "' needs a value (" + f.text + "=...)");
  }
  AluOp param_value_Alu(const Token& f, size_t eq, size_t, uint32_t vcol, const std::string& value) const {
    need_value(f, eq);
    std::optional<AluOp> a = parse_alu(value);
    if (!a) fail(vcol, "unknown ALU op '" + value + "'");
    return *a;
  }
  ActFunc param_value_Act(const Token& f, size_t eq, size_t, uint32_t vcol, const std::string& value) const {
    need_value(f, eq);
    std::optional<ActFunc> a = parse_act(value);
    if (!a) fail(vcol, "unknown activation function '" + value + "'");
    return *a;
  }
  ReduceCmd param_value_ReduceCmd(const Token& f, size_t eq, size_t, uint32_t vcol, const std::string& value) const {
    need_value(f, eq);
    std::optional<ReduceCmd> a = parse_reduce_cmd(value);
    if (!a) fail(vcol, "unknown reduce_cmd '" + value + "'");
    return *a;
  }
  float param_value_F32(const Token& f, size_t eq, size_t v, uint32_t, const std::string&) const {
    need_value(f, eq);
    return float_value(f, v);
  }
  bool param_value_Bool(const Token& f, size_t eq, size_t, uint32_t, const std::string&) const {
    if (eq != std::string::npos) fail(f.col, "'" + f.text.substr(0, eq) + "' is a flag and takes no value");
    return true;
  }
  uint16_t param_value_U16(const Token& f, size_t eq, size_t v, uint32_t, const std::string&) const {
    need_value(f, eq);
    return uint16_t(whole_uint(f, v, std::numeric_limits<uint16_t>::max()));
  }
  int32_t param_value_I32(const Token& f, size_t eq, size_t v, uint32_t vcol, const std::string& value) const {
    need_value(f, eq);
    Cursor c(*this, value, vcol, "number");
    int64_t x = c.signed_num();
    if (!c.done() || x < INT32_MIN || x > INT32_MAX) fail(vcol, "bad 32-bit integer '" + value + "'");
    return int32_t(x);
  }
  uint16_t semaphore(Cursor& c) const;
  uint64_t whole_uint(const Token& t, size_t pos, uint64_t max) const;
  const Token& arg(const std::vector<Token>& t, size_t i, const std::string& what) const {
    if (i >= t.size()) fail(t.back().end_col, "expected " + what + " after '" + t[0].text + "'");
    return t[i];
  }
  void no_more(const std::vector<Token>& t, size_t n) const {
    if (t.size() > n) fail(t[n].col, "unexpected '" + t[n].text + "' after '" + t[0].text + "' and its arguments");
  }

  std::string_view text_;
  const std::string& file_;
  uint32_t line_ = 0;
  Program p_;
  std::optional<Engine> stream_;
  bool any_instruction_ = false;
  unsigned header_seen_ = 0;  // bit per header directive, to reject duplicates
  bool any_line_ = false;     // a directive or instruction was read (a first '.core 0' must precede them all)
  bool multi_core_ = false;   // '.core 0' was read: the text holds one program per core
  std::vector<Program> done_cores_;  // the programs of the cores before the current one
};

void Cursor::malformed(const std::string& expected) const {
  std::string found = done() ? "the end of the " + std::string(what_) : "'" + std::string(1, s_[i_]) + "'";
  p_.fail(col(), "malformed " + std::string(what_) + ": expected " + expected + ", found " + found);
}

// [-](0x HEX+ | DEC+), followed by the end of the token or by one of ends_number().
Cursor::Raw Cursor::number() {
  Raw r;
  const size_t b = i_;
  r.col = col();
  r.neg = eat('-');
  if (peek() == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
    r.hex = true;
    i_ += 2;
  }
  const size_t digits = i_;
  const uint64_t base = r.hex ? 16 : 10;
  while (!done() && (r.hex ? is_hex(s_[i_]) : is_digit(s_[i_]))) {
    const uint64_t d = uint64_t(hex_value(s_[i_]));
    if (r.mag > (std::numeric_limits<uint64_t>::max() - d) / base) r.overflow = true;
    r.mag = r.mag * base + d;
    ++i_;
  }
  if (i_ == digits || (!done() && !ends_number(s_[i_]))) {
    size_t e = b;
    while (e < s_.size() && !ends_number(s_[e])) ++e;
    if (e == b) {
      i_ = b;
      malformed("a number");
    }
    p_.fail(r.col, "bad number '" + std::string(s_.substr(b, e - b)) + "'");
  }
  r.text = s_.substr(b, i_ - b);
  return r;
}

uint64_t Cursor::unsigned_num(uint64_t max) {
  Raw r = number();
  if (r.neg && r.mag != 0) p_.fail(r.col, "bad number '" + std::string(r.text) + "' (must not be negative)");
  if (r.overflow || r.mag > max)
    p_.fail(r.col, "number " + std::string(r.text) + " out of range (maximum " + std::to_string(max) + ")");
  return r.mag;
}

// Decimal in int64 range, or hex: the 64-bit two's complement pattern (how the printer writes offsets).
int64_t Cursor::signed_num() {
  Raw r = number();
  const uint64_t lim = r.neg   ? uint64_t(1) << 63
                       : r.hex ? std::numeric_limits<uint64_t>::max()
                               : (uint64_t(1) << 63) - 1;
  if (r.overflow || r.mag > lim) p_.fail(r.col, "number " + std::string(r.text) + " out of range for a 64-bit integer");
  return r.neg ? int64_t(0 - r.mag) : int64_t(r.mag);
}

std::vector<Token> Parser::tokenize(std::string_view line) const {
  std::vector<Token> out;
  size_t i = 0;
  const size_t n = line.size();
  for (;;) {
    while (i < n && is_space(line[i])) ++i;
    if (i >= n || line[i] == ';') break;
    Token t;
    t.col = uint32_t(i + 1);
    if (line[i] == '"') {
      t.quoted = true;
      ++i;
      for (;;) {
        if (i >= n) fail(t.col, "unterminated string");
        const char c = line[i];
        if (c == '"') {
          ++i;
          break;
        }
        if (c != '\\') {
          t.text += c;
          ++i;
          continue;
        }
        const uint32_t esc = uint32_t(i + 1);
        if (++i >= n) fail(t.col, "unterminated string");
        switch (line[i]) {
          case '"':
            t.text += '"';
            break;
          case '\\':
            t.text += '\\';
            break;
          case 'n':
            t.text += '\n';
            break;
          case 'r':
            t.text += '\r';
            break;
          case 't':
            t.text += '\t';
            break;
          case 'x':
            if (i + 2 >= n || !is_hex(line[i + 1]) || !is_hex(line[i + 2]))
              fail(esc, "bad escape in string: \\x needs two hex digits");
            t.text += char(hex_value(line[i + 1]) * 16 + hex_value(line[i + 2]));
            i += 2;
            break;
          default:
            fail(esc, "unknown escape '\\" + std::string(1, line[i]) + "' in string");
        }
        ++i;
      }
      if (i < n && !is_space(line[i]) && line[i] != ';') fail(uint32_t(i + 1), "expected a space after the string");
    } else {
      while (i < n && !is_space(line[i]) && line[i] != ';') t.text += line[i++];
    }
    t.end_col = uint32_t(i + 1);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Program> Parser::run() {
  size_t pos = 0;
  while (pos <= text_.size()) {
    size_t nl = text_.find('\n', pos);
    if (nl == std::string_view::npos) nl = text_.size();
    std::string_view line = text_.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_;
    std::vector<Token> t = tokenize(line);
    if (!t.empty()) {
      if (t[0].quoted) fail(t[0].col, "expected a directive or an instruction, found a string");
      if (t[0].text == ".core")
        core(t);
      else if (t[0].text[0] == '.')
        directive(t);
      else
        instruction(t);
      any_line_ = true;
    }
    pos = nl + 1;
  }
  done_cores_.push_back(std::move(p_));
  return std::move(done_cores_);
}

// .core C (LNC=2): the directives and streams that follow are physical core C's program; cores come in
// order from 0, and '.core 0' must be the first line.
void Parser::core(const std::vector<Token>& t) {
  const Token& a = arg(t, 1, std::string("a core index"));
  no_more(t, 2);
  const uint64_t c = whole_uint(a, 0, std::numeric_limits<uint32_t>::max());
  const size_t want = multi_core_ ? done_cores_.size() + 1 : 0;
  if (!multi_core_ && any_line_) fail(t[0].col, "'.core 0' must come before every other directive and instruction");
  if (c != want) fail(a.col, "'.core " + std::to_string(c) + "' where '.core " + std::to_string(want) + "' was expected");
  if (c >= kMaxAsmCores)
    fail(a.col, "core " + std::to_string(c) + " out of range (a program has at most " + std::to_string(kMaxAsmCores) +
                    " cores)");
  if (multi_core_) {
    done_cores_.push_back(std::move(p_));
    p_ = Program{};
    stream_.reset();
    any_instruction_ = false;
    header_seen_ = 0;
  }
  multi_core_ = true;
}

uint64_t Parser::whole_uint(const Token& t, size_t pos, uint64_t max) const {
  if (t.quoted) fail(t.col, "bad number: expected a number, found a string");
  Cursor c(*this, std::string_view(t.text).substr(pos), t.col + uint32_t(pos), "number");
  uint64_t v = c.unsigned_num(max);
  if (!c.done()) fail(t.col + uint32_t(pos), "bad number '" + t.text.substr(pos) + "'");
  return v;
}

void Parser::directive(const std::vector<Token>& t) {
  const std::string& d = t[0].text;
  static const char* const kHeader[] = {".target", ".kernel", ".semaphores", ".hbm_bytes"};
  for (unsigned k = 0; k < std::size(kHeader); ++k) {
    if (d != kHeader[k]) continue;
    if (header_seen_ & (1u << k)) fail(t[0].col, "duplicate directive '" + d + "'");
    header_seen_ |= 1u << k;
    if (k == 2 && any_instruction_) fail(t[0].col, "'.semaphores' must come before the first instruction");
    const Token& a = arg(t, 1, k < 2 ? std::string("a name") : std::string("a number"));
    no_more(t, 2);
    if (k == 0) p_.target = a.text;
    if (k == 1) p_.kernel_name = a.text;
    if (k == 2) p_.num_semaphores = uint32_t(whole_uint(a, 0, std::numeric_limits<uint32_t>::max()));
    if (k == 3) p_.hbm_bytes = whole_uint(a, 0, std::numeric_limits<uint64_t>::max());
    return;
  }
  if (d == ".tensor") return tensor(t);
  if (d == ".loc") return location(t);
  if (d == ".str") return string_entry(t);
  if (d == ".stream") {
    const Token& a = arg(t, 1, std::string("an engine name"));
    no_more(t, 2);
    stream_ = a.quoted ? std::nullopt : parse_engine(a.text);
    if (!stream_) fail(a.col, "unknown engine '" + a.text + "' (expected tensor, vector, scalar, gpsimd or sync)");
    return;
  }
  fail(t[0].col, "unknown directive '" + d + "'");
}

// .tensor NAME KIND DTYPE [SHAPE] @ADDR bytes=N [param=I] [out=J]   (the key=value fields in any order)
void Parser::tensor(const std::vector<Token>& t) {
  HbmTensor h;
  h.name = arg(t, 1, "a tensor name").text;
  const Token& kind = arg(t, 2, "the tensor kind (input, output or internal)");
  if (kind.text == "input" && !kind.quoted)
    h.kind = HbmTensor::Kind::Input;
  else if (kind.text == "output" && !kind.quoted)
    h.kind = HbmTensor::Kind::Output;
  else if (kind.text == "internal" && !kind.quoted)
    h.kind = HbmTensor::Kind::Internal;
  else
    fail(kind.col, "unknown tensor kind '" + kind.text + "' (expected input, output or internal)");
  const Token& dt = arg(t, 3, "a dtype");
  std::optional<DType> dtype = dt.quoted ? std::nullopt : parse_dtype(dt.text);
  if (!dtype) fail(dt.col, "unknown dtype '" + dt.text + "'");
  h.dtype = *dtype;
  const Token& shape = arg(t, 4, "the shape [d0,d1,...]");
  Cursor c(*this, shape.text, shape.col, "shape");
  c.expect('[', " to open the shape");
  if (!c.eat(']')) {
    do h.shape.push_back(c.signed_num());
    while (c.eat(','));
    c.expect(']', " or ',' in the shape");
  }
  c.expect_end();
  const Token& addr = arg(t, 5, "the address @0x...");
  if (addr.quoted || addr.text.empty() || addr.text[0] != '@')
    fail(addr.col, "expected the address @0x..., found '" + addr.text + "'");
  h.address = whole_uint(addr, 1, std::numeric_limits<uint64_t>::max());
  unsigned seen = 0;
  for (size_t k = 6; k < t.size(); ++k) {
    const Token& f = t[k];
    const size_t eq = f.quoted ? std::string::npos : f.text.find('=');
    const std::string key = f.text.substr(0, eq);
    const int which = key == "bytes" ? 0 : key == "param" ? 1 : key == "out" ? 2 : key == "init" ? 3 : -1;
    if (eq == std::string::npos || which < 0)
      fail(f.col, "unexpected '" + f.text + "' in .tensor (expected bytes=N, param=I, out=J or init=HEX)");
    if (seen & (1u << which)) fail(f.col, "duplicate field '" + key + "'");
    seen |= 1u << which;
    if (which == 0) {
      h.bytes = whole_uint(f, eq + 1, std::numeric_limits<uint64_t>::max());
    } else if (which == 3) {  // constant data: two hex digits a byte
      const std::string_view hx = std::string_view(f.text).substr(eq + 1);
      auto digit = [&](size_t i) -> uint8_t {
        const char ch = hx[i];
        if (ch >= '0' && ch <= '9') return uint8_t(ch - '0');
        if (ch >= 'a' && ch <= 'f') return uint8_t(ch - 'a' + 10);
        if (ch >= 'A' && ch <= 'F') return uint8_t(ch - 'A' + 10);
        fail(f.col + uint32_t(eq + 1 + i), std::string("expected a hex digit in init=, found '") + ch + "'");
      };
      if (hx.empty() || hx.size() % 2)
        fail(f.col + uint32_t(eq + 1), "init= needs two hex digits a byte (" + std::to_string(hx.size()) + " digits)");
      h.init.resize(hx.size() / 2);
      for (size_t i = 0; i < h.init.size(); ++i) h.init[i] = uint8_t(digit(2 * i) << 4 | digit(2 * i + 1));
    } else {
      Cursor v(*this, std::string_view(f.text).substr(eq + 1), f.col + uint32_t(eq + 1), "number");
      const int64_t x = v.signed_num();
      v.expect_end();
      if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
        fail(f.col + uint32_t(eq + 1), "number " + std::to_string(x) + " out of range for a 32-bit index");
      (which == 1 ? h.param_index : h.output_index) = int32_t(x);
    }
  }
  try {
    check_constant_data(h);
  } catch (const Error& e) {
    fail(t[0].col, e.what());
  }
  p_.hbm_tensors.push_back(std::move(h));
}

// .loc Ln "file" line col   (labels are numbered from L1, in order)
void Parser::location(const std::vector<Token>& t) {
  const Token& label = arg(t, 1, "a label L" + std::to_string(p_.locations.size()));
  const std::string want = "L" + std::to_string(p_.locations.size());
  if (label.quoted || label.text != want)
    fail(label.col,
         "expected label " + want + ", found '" + label.text + "' (locations are numbered from L1 in order)");
  const Token& file = arg(t, 2, "a quoted file name");
  if (!file.quoted) fail(file.col, "expected a quoted file name, found '" + file.text + "'");
  SourceLoc l;
  l.file = file.text;
  l.line = uint32_t(whole_uint(arg(t, 3, "a line number"), 0, std::numeric_limits<uint32_t>::max()));
  l.col = uint32_t(whole_uint(arg(t, 4, "a column number"), 0, std::numeric_limits<uint32_t>::max()));
  no_more(t, 5);
  p_.locations.push_back(std::move(l));
}

// .str Sn "text"   (device_print prefixes, numbered from S0 in order)
void Parser::string_entry(const std::vector<Token>& t) {
  const std::string want = "S" + std::to_string(p_.strings.size());
  const Token& label = arg(t, 1, "a label " + want);
  if (label.quoted || label.text != want)
    fail(label.col, "expected label " + want + ", found '" + label.text + "' (strings are numbered from S0 in order)");
  const Token& text = arg(t, 2, "a quoted string");
  if (!text.quoted) fail(text.col, "expected a quoted string, found '" + text.text + "'");
  no_more(t, 3);
  p_.strings.push_back(text.text);
}

// MEM:DTYPE@pSTART:COUNT+OFFSET[[s,c],...]  or  hbm:DTYPE@ADDR[[ps,pc],[s,c],...]  or  none
AccessPattern Parser::access_pattern(const Token& f, size_t value_pos) const {
  Cursor c(*this, std::string_view(f.text).substr(value_pos), f.col + uint32_t(value_pos), "access pattern");
  AccessPattern ap;
  const uint32_t mcol = c.col();
  const std::string_view mem = c.word();
  if (mem == "none" && c.done()) return ap;
  if (mem.empty()) c.malformed("a memory (hbm, sbuf or psum)");
  ap.mem = mem == "hbm" ? Memory::HBM : mem == "sbuf" ? Memory::SBUF : mem == "psum" ? Memory::PSUM : Memory::None;
  if (ap.mem == Memory::None) fail(mcol, "unknown memory '" + std::string(mem) + "' (expected hbm, sbuf or psum)");
  c.expect(':', " after the memory");
  const uint32_t dcol = c.col();
  const std::string_view dt = c.word();
  std::optional<DType> dtype = parse_dtype(dt);
  if (dt.empty()) c.malformed("a dtype");
  if (!dtype) fail(dcol, "unknown dtype '" + std::string(dt) + "'");
  ap.dtype = *dtype;
  c.expect('@', " after the dtype");
  constexpr uint64_t u32max = std::numeric_limits<uint32_t>::max();
  uint32_t stride_col = 0;
  auto dim = [&](int64_t& stride, uint32_t& count) {
    c.expect('[', " to open a [stride,count] pair");
    stride_col = c.col();
    stride = c.signed_num();
    c.expect(',', " between stride and count");
    count = uint32_t(c.unsigned_num(u32max));
    c.expect(']', " to close a [stride,count] pair");
  };
  auto free_dim = [&] {
    if (ap.num_dims == kMaxFreeDims) fail(c.col(), "more than 4 free dims in an access pattern");
    ApDim& d = ap.dims[ap.num_dims++];
    int64_t stride = 0;
    dim(stride, d.count);
    if (!fits_stride(stride))
      fail(stride_col, "free dim stride " + std::to_string(stride) + " out of range (a free dim's stride is 32-bit signed)");
    d.stride = int32_t(stride);
  };
  if (ap.mem == Memory::HBM) {
    ap.offset = c.signed_num();
    c.expect('[', " to open the dims");
    dim(ap.partition_stride, ap.num_partitions);
    while (c.eat(',')) free_dim();
  } else {
    c.expect('p', " before the start partition");
    ap.start_partition = uint32_t(c.unsigned_num(u32max));
    c.expect(':', " after the start partition");
    ap.num_partitions = uint32_t(c.unsigned_num(u32max));
    c.expect('+', " before the byte offset");
    ap.offset = c.signed_num();
    c.expect('[', " to open the free dims");
    if (c.peek() != ']') {
      free_dim();
      while (c.eat(',')) free_dim();
    }
  }
  c.expect(']', " or ',' to close the dims");
  if (!c.done()) {
    if (!c.eat_prefix("dyn(")) c.malformed("the end of the access pattern");
    dyn_offset(c, ap);
  }
  c.expect_end();
  return ap;
}

// dyn(sbuf:DTYPE@pP+ADDR,STRIDE,LO,HI) or dyn(rN,STRIDE,LO,HI) after an on-chip pattern (isa::DynOffset).
// (called after "dyn(")
void Parser::dyn_offset(Cursor& c, AccessPattern& ap) const {
  if (ap.mem == Memory::HBM) fail(c.col() - 4, "a dynamic offset dyn(...) needs an on-chip (sbuf or psum) pattern");
  constexpr uint64_t i32max = uint64_t(std::numeric_limits<int32_t>::max());
  const uint32_t scol = c.col();
  const std::string_view w = c.word();
  if (w == "sbuf") {
    ap.dyn.kind = DynOffset::Sbuf;
    c.expect(':', " after the memory");
    const uint32_t dcol = c.col();
    const std::string_view dt = c.word();
    std::optional<DType> dtype = parse_dtype(dt);
    if (!dtype || !is_integer(*dtype)) fail(dcol, "a dynamic offset needs an integer dtype, got '" + std::string(dt) + "'");
    ap.dyn.dtype = *dtype;
    c.expect('@', " after the dtype");
    c.expect('p', " before the offset's partition");
    ap.dyn.src = uint16_t(c.unsigned_num(65535));
    c.expect('+', " before the offset's byte address");
    ap.dyn.addr = int32_t(c.unsigned_num(i32max));
  } else if (w.size() > 1 && w[0] == 'r' && std::all_of(w.begin() + 1, w.end(), is_digit) && w.size() <= 6) {
    ap.dyn.kind = DynOffset::Reg;
    const uint64_t r = std::stoull(std::string(w.substr(1)));
    if (r > 65535) fail(scol, "register number " + std::string(w.substr(1)) + " out of range (maximum 65535)");
    ap.dyn.src = uint16_t(r);
  } else {
    fail(scol, "a dynamic offset source must be sbuf:DTYPE@pP+ADDR or a register rN, got '" + std::string(w) + "'");
  }
  c.expect(',', " after the offset source");
  const uint32_t stcol = c.col();
  const int64_t stride = c.signed_num();
  if (stride < std::numeric_limits<int32_t>::min() || stride > std::numeric_limits<int32_t>::max())
    fail(stcol, "dynamic offset stride " + std::to_string(stride) + " out of range for a 32-bit integer");
  ap.dyn.stride = int32_t(stride);
  c.expect(',', " after the stride");
  ap.dyn.lo = int32_t(c.unsigned_num(i32max));
  c.expect(',', " after the low bound");
  ap.dyn.hi = int32_t(c.unsigned_num(i32max));
  c.expect(')', " to close dyn(...)");
}

// %.9g output, inf, -inf, nan, -nan, or nan(0xBITS) with the full 32-bit pattern.
float Parser::float_value(const Token& f, size_t value_pos) const {
  const std::string s = f.text.substr(value_pos);
  const uint32_t col = f.col + uint32_t(value_pos);
  if (s == "nan") return bits_to_float(0x7fc00000u);
  if (s == "-nan") return bits_to_float(0xffc00000u);
  if (s == "inf" || s == "+inf") return std::numeric_limits<float>::infinity();
  if (s == "-inf") return -std::numeric_limits<float>::infinity();
  if (s.size() > 7 && s.compare(0, 6, "nan(0x") == 0 && s.back() == ')' && s.size() <= 15) {
    uint32_t bits = 0;
    bool ok = true;
    for (size_t i = 6; i + 1 < s.size(); ++i) {
      ok = ok && is_hex(s[i]);
      if (ok) bits = bits * 16 + uint32_t(hex_value(s[i]));
    }
    if (ok && std::isnan(bits_to_float(bits))) return bits_to_float(bits);
    fail(col, "bad NaN '" + s + "' (nan(0x...) needs the 32-bit pattern of a NaN)");
  }
  // [+-] digits [. digits] [e [+-] digits], with at least one mantissa digit.
  size_t i = 0, mant = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  }
  bool ok = mant > 0;
  if (ok && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t e = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++e;
    ok = e > 0;
  }
  if (!ok || i != s.size()) fail(col, "bad number '" + s + "'");
  errno = 0;
  const float v = std::strtof(s.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v)) fail(col, "number " + s + " out of range for float32");
  return v;  // underflow returns the correctly rounded subnormal or zero
}

uint16_t Parser::semaphore(Cursor& c) const {
  const uint32_t col = c.col();
  c.expect('s', " before a semaphore index");
  const uint64_t s = c.unsigned_num(std::numeric_limits<uint32_t>::max());
  if (s >= p_.num_semaphores)
    fail(col, "semaphore s" + std::to_string(s) + " out of range (the program has " +
                  std::to_string(p_.num_semaphores) + " semaphores)");
  if (s > std::numeric_limits<uint16_t>::max())
    fail(col, "semaphore s" + std::to_string(s) + " out of range (maximum s65535)");
  return uint16_t(s);
}

void Parser::instruction(const std::vector<Token>& t) {
  const Token& m = t[0];
  const std::optional<Opcode> op = parse_opcode(m.text);
  if (!op) fail(m.col, "unknown mnemonic '" + m.text + "'");
  if (!stream_) fail(m.col, "instruction before any .stream directive");
  any_instruction_ = true;
  const InstrInfo& in = info(*op);
  Instruction ins;
  ins.op = *op;
  ins.engine = *stream_;
  // Parameters come from params.def (in its order), then the instruction-level fields.
  static const char* const kParams[] = {
#define PARAM(field, key, kind, def) key,
#include "isa/params.def"
#undef PARAM
      "engine", "wait", "signal"};
  constexpr int kNumParamKeys = int(std::size(kParams)) - 3;
  std::bitset<std::size(kParams)> seen_params;
  unsigned seen_slots = 0;
  bool seen_loc = false;
  constexpr uint64_t u32max = std::numeric_limits<uint32_t>::max();
  for (size_t k = 1; k < t.size(); ++k) {
    const Token& f = t[k];
    if (f.quoted) fail(f.col, "unexpected string in an instruction");
    if (f.text[0] == '@') {
      if (seen_loc) fail(f.col, "duplicate location");
      seen_loc = true;
      Cursor c(*this, f.text, f.col, "location");
      c.eat('@');
      c.expect('L', " after '@' (a location is @L<n>)");
      const uint64_t l = c.unsigned_num(u32max);
      c.expect_end();
      if (l >= p_.locations.size())
        fail(f.col, "location L" + std::to_string(l) + " is not defined (no .loc L" + std::to_string(l) + ")");
      ins.loc = uint32_t(l);
      continue;
    }
    const size_t eq = f.text.find('=');
    const std::string key = f.text.substr(0, eq);
    const size_t v = eq == std::string::npos ? f.text.size() : eq + 1;
    const uint32_t vcol = f.col + uint32_t(v);
    const std::string value = eq == std::string::npos ? std::string() : f.text.substr(v);
    int slot = -1;
    if (eq != std::string::npos)
      for (int i = 0; i < in.num_operands; ++i)
        if (key == in.operands[i].name) slot = i;
    if (slot >= 0 && key == "scale" && !looks_like_operand(value)) slot = -1;  // activation's scale= param
    if (slot >= 0) {
      if (seen_slots & (1u << slot)) fail(f.col, "duplicate operand '" + key + "'");
      seen_slots |= 1u << slot;
      ins.operands[slot] = access_pattern(f, v);
      continue;
    }
    int param = -1;
    for (int i = 0; i < int(std::size(kParams)); ++i)
      if (key == kParams[i]) param = i;
    if (param < 0) {
      if (eq == std::string::npos)
        fail(f.col, "unexpected '" + f.text + "' (expected slot=operand, a parameter, a flag or @Ln)");
      std::string slots;
      for (int i = 0; i < in.num_operands; ++i) slots += (i ? ", " : "") + std::string(in.operands[i].name);
      fail(f.col, "unknown operand slot '" + key + "' for " + in.mnemonic +
                      (slots.empty() ? " (it has no operands)" : " (slots: " + slots + ")"));
    }
    if (param < kNumParamKeys && !takes_param(*op, ParamId(param)))
      fail(f.col, std::string(in.mnemonic) + " does not take the field '" + key + "' (its fields: " +
                      param_list_text(*op) + ")");
    if (seen_params.test(size_t(param))) fail(f.col, "duplicate field '" + key + "'");
    seen_params.set(size_t(param));
    if (param < kNumParamKeys) {
      InstrParams& p = ins.params;
      int index = 0;
#define PARAM(field, pkey, kind, def) \
  if (index++ == param) p.field = param_value_##kind(f, eq, v, vcol, value);
#include "isa/params.def"
#undef PARAM
      continue;
    }
    if (eq == std::string::npos) fail(f.col, "'" + key + "' needs a value (" + key + "=...)");
    switch (param - kNumParamKeys) {
      case 0: {
        std::optional<Engine> e = parse_engine(value);
        if (!e) fail(vcol, "unknown engine '" + value + "' (expected tensor, vector, scalar, gpsimd or sync)");
        ins.engine = *e;
        break;
      }
      case 1:
      case 2: {
        const bool is_wait = param - kNumParamKeys == 1;
        Cursor c(*this, value, vcol, is_wait ? "wait list" : "signal list");
        do {
          const uint16_t sem = semaphore(c);
          if (is_wait) {
            c.expect('>', " in sS>=V");
            c.expect('=', " in sS>=V");
            ins.waits.push_back({sem, uint32_t(c.unsigned_num(u32max))});
          } else {
            c.expect('+', " in sS+N");
            ins.updates.push_back({sem, uint32_t(c.unsigned_num(u32max))});
          }
        } while (c.eat(','));
        c.expect_end();
        break;
      }
    }
  }
  for (int i = 0; i < in.num_operands; ++i)
    if (in.operands[i].required && !ins.operands[i].present())
      fail(m.col, "missing required operand '" + std::string(in.operands[i].name) + "' for " + in.mnemonic);
  p_.streams[size_t(*stream_)].push_back(std::move(ins));
}

}  // namespace

std::vector<Program> parse_asm_cores(std::string_view text, const std::string& filename) {
  return Parser(text, filename).run();
}

Program parse_asm(std::string_view text, const std::string& filename) {
  std::vector<Program> cores = parse_asm_cores(text, filename);
  if (cores.size() != 1)
    throw Error("the text holds an LNC=" + std::to_string(cores.size()) + " program (" + std::to_string(cores.size()) +
                    " cores, '.core' directives); read it with parse_asm_cores",
                SourceLoc{filename, 0, 0});
  return std::move(cores[0]);
}

}  // namespace nkisim::isa
