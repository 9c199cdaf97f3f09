// lexer.cpp - Python 3.11 tokenizer (indentation, brackets, numbers, strings, f-string bodies).
#include "frontend/lexer.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nkisim::frontend {
namespace {

constexpr int kMaxParenDepth = 200;
constexpr int kMaxIndentLevels = 100;

std::string fmt_cp(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  return buf;
}

// Decodes one UTF-8 sequence at s[i] (already validated); returns the code point and its length.
uint32_t decode_cp(std::string_view s, size_t i, int* len) {
  unsigned char c = s[i];
  if (c < 0x80) {
    *len = 1;
    return c;
  }
  int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (uint8_t(s[i + k]) & 0x3F);
  *len = n;
  return cp;
}

bool is_id_cp(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
  if (cp <= 0xBF) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x20CF) return false;
  if (cp >= 0x2190 && cp <= 0x2BFF) return false;
  if (cp >= 0x3000 && cp <= 0x303F) return false;
  if (cp >= 0xFE00 && cp <= 0xFE0F) return false;
  if (cp == 0xFEFF || (cp >= 0xFF01 && cp <= 0xFF0F)) return false;
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_val(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file, const LexOptions& o)
      : s_(src), file_(file), opts_(o), line_(o.start.line), col_(o.start.col) {}

  std::vector<Token> take_tokens() { return std::move(toks_); }
  std::vector<Token> run() {
    validate();
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
    indents_.push_back(0);
    alt_indents_.push_back(0);
    bool at_line_start = !opts_.implicit_paren;
    while (true) {
      if (at_line_start && parens_.empty()) {
        if (!handle_indentation()) break;  // EOF
        at_line_start = false;
        continue;
      }
      if (i_ >= s_.size()) break;
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\f') {
        adv();
        continue;
      }
      if (c == '#') {
        while (i_ < s_.size() && !nl(s_[i_])) adv();
        continue;
      }
      if (nl(c)) {
        Pos p = here();
        adv();
        if (parens_.empty() && !opts_.implicit_paren) {
          if (line_has_tokens_) push(Tok::Newline, p);
          line_has_tokens_ = false;
          at_line_start = true;
        }
        continue;
      }
      if (c == '\\') {
        Pos p = here();
        adv();
        if (i_ >= s_.size()) fail("unexpected EOF while parsing", p);
        if (!nl(s_[i_])) fail("unexpected character after line continuation character", p);
        adv();
        continue;
      }
      lex_token();
    }
    finish();
    return std::move(toks_);
  }

 private:
  std::string_view s_;
  const std::string& file_;
  LexOptions opts_;
  size_t i_ = 0;
  uint32_t line_, col_;
  std::vector<Token> toks_;
  std::vector<int> indents_, alt_indents_;
  struct Open {
    char c;
    Pos pos;
  };
  std::vector<Open> parens_;
  bool line_has_tokens_ = false;

  static bool nl(char c) { return c == '\n' || c == '\r'; }
  Pos here() const { return {line_, col_}; }
  [[noreturn]] void fail(const std::string& msg, Pos p) const { throw Error(msg, SourceLoc{file_, p.line, p.col}); }
  void adv() {
    unsigned char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if (c == '\r') {
      if (i_ < s_.size() && s_[i_] == '\n') ++i_;
      ++line_;
      col_ = 1;
    } else {
      ++col_;  // columns are 1-based byte offsets (as Python's col_offset + 1)
    }
  }
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  Token& push(Tok k, Pos p) {
    toks_.emplace_back();
    Token& t = toks_.back();
    t.kind = k;
    t.pos = p;
    t.end = here();
    if (k != Tok::Newline && k != Tok::Indent && k != Tok::Dedent) line_has_tokens_ = true;
    return t;
  }

  // NUL bytes and malformed UTF-8 are rejected up front, located at the offending byte.
  void validate() {
    uint32_t line = opts_.start.line, col = opts_.start.col;
    for (size_t i = 0; i < s_.size();) {
      unsigned char c = s_[i];
      if (c == 0) fail("source code cannot contain null bytes", {line, col});
      if (c < 0x80) {
        if (c == '\n' || (c == '\r' && (i + 1 >= s_.size() || s_[i + 1] != '\n'))) {
          ++line;
          col = 1;
        } else if (c != '\r')
          ++col;
        ++i;
        continue;
      }
      int n = 0;
      unsigned char lo = 0x80, hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF)
        n = 2;
      else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
      } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
      }
      bool ok = n > 0 && i + n <= s_.size();
      for (int k = 1; ok && k < n; ++k) {
        unsigned char d = s_[i + k];
        if (k == 1 ? (d < lo || d > hi) : (d & 0xC0) != 0x80) ok = false;
      }
      if (!ok) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "invalid UTF-8 in source (byte 0x%02x)", c);
        fail(buf, {line, col});
      }
      i += n;
      col += n;
    }
  }

  // Measures a new line's indentation and emits Indent/Dedent. Returns false at end of input.
  bool handle_indentation() {
    while (true) {
      int col = 0, alt = 0;
      while (i_ < s_.size()) {
        char c = s_[i_];
        if (c == ' ') {
          ++col;
          ++alt;
        } else if (c == '\t') {
          col = (col / 8 + 1) * 8;
          ++alt;
        } else if (c == '\f') {
          col = alt = 0;
        } else
          break;
        adv();
      }
      if (i_ >= s_.size()) return false;
      char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && !nl(s_[i_])) adv();
      }
      if (i_ < s_.size() && nl(s_[i_])) {
        adv();
        continue;
      }  // blank or comment-only line
      if (i_ >= s_.size()) return false;
      Pos p = here();
      if (col > indents_.back()) {
        if (alt <= alt_indents_.back()) fail("inconsistent use of tabs and spaces in indentation", p);
        if (int(indents_.size()) > kMaxIndentLevels) fail("too many levels of indentation", p);
        indents_.push_back(col);
        alt_indents_.push_back(alt);
        Token& t = push(Tok::Indent, p);
        t.pos = {p.line, 1};
      } else {
        while (col < indents_.back()) {
          indents_.pop_back();
          alt_indents_.pop_back();
          push(Tok::Dedent, p);
        }
        if (col != indents_.back()) fail("unindent does not match any outer indentation level", p);
        if (alt != alt_indents_.back()) fail("inconsistent use of tabs and spaces in indentation", p);
      }
      return true;
    }
  }

  void finish() {
    if (!parens_.empty()) {
      auto& o = parens_.back();
      fail(std::string("'") + o.c + "' was never closed", o.pos);
    }
    Pos p = here();
    if (!opts_.implicit_paren) {
      if (line_has_tokens_) push(Tok::Newline, p);
      while (indents_.size() > 1) {
        indents_.pop_back();
        push(Tok::Dedent, p);
      }
    }
    push(Tok::EndMarker, p);
  }

  void lex_token() {
    Pos p = here();
    unsigned char c = s_[i_];
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return lex_number(p);
    if (c == '"' || c == '\'') return lex_string(p, 0);
    int len = 1;
    uint32_t cp = decode_cp(s_, i_, &len);
    if (is_id_cp(cp)) return lex_name(p);
    lex_op(p, cp);
  }

  void lex_name(Pos p) {
    size_t b = i_;
    while (i_ < s_.size()) {
      int len = 1;
      uint32_t cp = decode_cp(s_, i_, &len);
      if (!(is_id_cp(cp) || (cp >= '0' && cp <= '9'))) break;
      for (int k = 0; k < len; ++k) adv();
    }
    std::string_view name = s_.substr(b, i_ - b);
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && name.size() <= 2) {
      uint8_t flags = 0;
      bool ok = true;
      for (char ch : name) {
        char l = char(ch | 0x20);
        uint8_t f = l == 'r' ? SF_Raw : l == 'b' ? SF_Bytes : l == 'f' ? SF_FString : l == 'u' ? 0x80 : 0;
        if (f == 0 || (flags & f)) {
          ok = false;
          break;
        }
        flags |= f;
      }
      if (ok && (flags & 0x80) && name.size() > 1) ok = false;           // u only alone
      if (ok && (flags & SF_Bytes) && (flags & SF_FString)) ok = false;  // no bf
      if (ok) return lex_string(p, uint8_t(flags & 0x7F));
    }
    Token& t = push(Tok::Name, p);
    t.text = std::string(name);
  }

  void lex_number(Pos p) {
    size_t b = i_;
    auto digits = [&](auto pred, const char* what) {
      // Digits with single underscores between them; returns the digit count.
      int n = 0;
      while (i_ < s_.size()) {
        if (pred(s_[i_])) {
          adv();
          ++n;
          continue;
        }
        if (s_[i_] == '_' && n > 0 && i_ + 1 < s_.size() && pred(s_[i_ + 1])) {
          adv();
          continue;
        }
        if (s_[i_] == '_') fail(std::string("invalid ") + what + " literal", here());
        break;
      }
      return n;
    };
    auto trailing = [&](const char* what) {
      if (i_ >= s_.size()) return;
      int len = 1;
      uint32_t cp = decode_cp(s_, i_, &len);
      if (!(is_id_cp(cp) || (cp >= '0' && cp <= '9'))) return;
      // Python accepts a keyword glued to a number (`1if x else y`).
      static const char* const kws[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
      for (const char* kw : kws) {
        size_t n = std::strlen(kw);
        if (s_.substr(i_, n) == kw) {
          size_t e = i_ + n;
          if (e >= s_.size() || !(std::isalnum((unsigned char)s_[e]) || s_[e] == '_')) return;
        }
      }
      fail(std::string("invalid ") + what + " literal", here());
    };
    auto finish_int = [&](int base, size_t digits_begin, const char* what) {
      Token& t = push(Tok::Int, p);
      t.text = std::string(s_.substr(b, i_ - b));
      unsigned __int128 v = 0;
      for (size_t k = digits_begin; k < i_; ++k) {
        char ch = s_[k];
        if (ch == '_') continue;
        v = v * base + hex_val(ch);
        if (v > (unsigned __int128)INT64_MAX) {
          t.overflow = true;
          v = 0;
          break;
        }
      }
      t.ival = int64_t(v);
      (void)what;
    };
    if (s_[i_] == '0' &&
        (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O' || peek(1) == 'b' || peek(1) == 'B')) {
      char k = char(peek(1) | 0x20);
      adv();
      adv();
      const char* what = k == 'x' ? "hexadecimal" : k == 'o' ? "octal" : "binary";
      if (peek() == '_') adv();
      size_t db = i_;
      int n = k == 'x'   ? digits(is_hex, what)
              : k == 'o' ? digits([](char ch) { return ch >= '0' && ch <= '7'; }, what)
                         : digits([](char ch) { return ch == '0' || ch == '1'; }, what);
      if (is_digit(peek()) && k != 'x')
        fail(std::string("invalid digit '") + peek() + "' in " + what + " literal", here());
      if (n == 0) fail(std::string("invalid ") + what + " literal", here());
      trailing(what);
      finish_int(k == 'x' ? 16 : k == 'o' ? 8 : 2, db, what);
      return;
    }
    bool is_float = false;
    int nint = digits(is_digit, "decimal");
    if (peek() == '.') {
      is_float = true;
      adv();
      if (is_digit(peek())) digits(is_digit, "decimal");
    }
    if (peek() == 'e' || peek() == 'E') {
      char n1 = peek(1), n2 = peek(2);
      if (is_digit(n1) || ((n1 == '+' || n1 == '-') && is_digit(n2))) {
        is_float = true;
        adv();
        if (!is_digit(peek())) adv();
        digits(is_digit, "decimal");
      } else {
        fail("invalid decimal literal", here());
      }
    }
    bool imag = false;
    if (peek() == 'j' || peek() == 'J') {
      imag = true;
      adv();
    }
    trailing("decimal");
    std::string clean;
    for (size_t k = b; k < i_; ++k)
      if (s_[k] != '_' && s_[k] != 'j' && s_[k] != 'J') clean += s_[k];
    if (!is_float && !imag) {
      if (nint > 1 && s_[b] == '0' && clean.find_first_not_of('0') != std::string::npos)
        fail(
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
            "integers",
            p);
      finish_int(10, b, "decimal");
      return;
    }
    Token& t = push(imag ? Tok::Imag : Tok::Float, p);
    t.text = std::string(s_.substr(b, i_ - b));
    t.fval = std::strtod(clean.c_str(), nullptr);
  }

  void lex_string(Pos p, uint8_t flags) {
    char q = s_[i_];
    bool triple = peek(1) == q && peek(2) == q;
    adv();
    if (triple) {
      adv();
      adv();
      flags |= SF_Triple;
    }
    size_t b = i_;
    Pos body = here();
    size_t e;
    while (true) {
      if (i_ >= s_.size()) {
        fail(std::string(triple ? "unterminated triple-quoted string literal" : "unterminated string literal") +
                 " (detected at line " + std::to_string(line_) + ")",
             p);
      }
      char c = s_[i_];
      if (c == '\\') {
        adv();
        if (i_ < s_.size()) adv();
        continue;
      }
      if (nl(c) && !triple) fail("unterminated string literal (detected at line " + std::to_string(line_) + ")", p);
      if (c == q) {
        if (!triple) {
          e = i_;
          adv();
          break;
        }
        if (peek(1) == q && peek(2) == q) {
          e = i_;
          adv();
          adv();
          adv();
          break;
        }
      }
      adv();
    }
    std::string_view raw = s_.substr(b, e - b);
    if (flags & SF_Bytes) {
      for (char ch : raw)
        if ((unsigned char)ch >= 0x80) fail("bytes can only contain ASCII literal characters", p);
    }
    Token& t = push(Tok::String, p);
    t.str_flags = flags;
    t.body = body;
    if ((flags & SF_Raw) || (flags & SF_FString))
      t.text = std::string(raw);
    else
      t.text = decode_escapes(raw, flags & SF_Bytes, file_, body);
  }

  void lex_op(Pos p, uint32_t cp) {
    struct OpText {
      const char* text;
      Op op;
    };
    static const OpText ops[] = {
        {"**=", Op::DoubleStarEqual},
        {"//=", Op::DoubleSlashEqual},
        {">>=", Op::RightShiftEqual},
        {"<<=", Op::LeftShiftEqual},
        {"...", Op::Ellipsis},
        {"!=", Op::NotEqual},
        {"**", Op::DoubleStar},
        {"//", Op::DoubleSlash},
        {"<<", Op::LeftShift},
        {">>", Op::RightShift},
        {"<=", Op::LessEqual},
        {">=", Op::GreaterEqual},
        {"==", Op::EqEqual},
        {"->", Op::RArrow},
        {":=", Op::ColonEqual},
        {"+=", Op::PlusEqual},
        {"-=", Op::MinEqual},
        {"*=", Op::StarEqual},
        {"/=", Op::SlashEqual},
        {"%=", Op::PercentEqual},
        {"&=", Op::AmperEqual},
        {"|=", Op::VBarEqual},
        {"^=", Op::CircumflexEqual},
        {"@=", Op::AtEqual},
        {"(", Op::LPar},
        {")", Op::RPar},
        {"[", Op::LSqb},
        {"]", Op::RSqb},
        {"{", Op::LBrace},
        {"}", Op::RBrace},
        {":", Op::Colon},
        {",", Op::Comma},
        {";", Op::Semi},
        {"+", Op::Plus},
        {"-", Op::Minus},
        {"*", Op::Star},
        {"/", Op::Slash},
        {"|", Op::VBar},
        {"&", Op::Amper},
        {"<", Op::Less},
        {">", Op::Greater},
        {"=", Op::Equal},
        {".", Op::Dot},
        {"%", Op::Percent},
        {"~", Op::Tilde},
        {"^", Op::Circumflex},
        {"@", Op::At},
    };
    for (const auto& o : ops) {
      size_t n = std::strlen(o.text);
      if (s_.substr(i_, n) != o.text) continue;
      for (size_t k = 0; k < n; ++k) adv();
      Token& t = push(Tok::Op, p);
      t.op = o.op;
      char c = o.text[0];
      if (n == 1 && (c == '(' || c == '[' || c == '{')) {
        if (int(parens_.size()) >= kMaxParenDepth) fail("too many nested parentheses", p);
        parens_.push_back({c, p});
      } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
        if (parens_.empty()) fail(std::string("unmatched '") + c + "'", p);
        char open = parens_.back().c;
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (c != want) {
          std::string msg =
              std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" + open + "'";
          if (parens_.back().pos.line != p.line) msg += " on line " + std::to_string(parens_.back().pos.line);
          fail(msg, p);
        }
        parens_.pop_back();
      }
      return;
    }
    std::string ch;
    append_utf8(ch, cp);
    fail("invalid character '" + ch + "' (" + fmt_cp(cp) + ")", p);
  }
};

Pos advance_pos(Pos p, std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++p.line;
      p.col = 1;
    } else if (c != '\r')
      ++p.col;
  }
  return p;
}

}  // namespace

std::string_view op_text(Op op) {
  static const char* const names[] = {"",    "(",   ")",  "[",   "]",  "{",  "}",  ":",   ",",  ";",  "+",  "-",  "*",
                                      "/",   "|",   "&",  "<",   ">",  "=",  ".",  "%",   "==", "!=", "<=", ">=", "~",
                                      "^",   "<<",  ">>", "**",  "+=", "-=", "*=", "/=",  "%=", "&=", "|=", "^=", "<<=",
                                      ">>=", "**=", "//", "//=", "@",  "@=", "->", "...", ":=", "!"};
  return names[size_t(op)];
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80)
    out += char(cp);
  else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

std::string decode_escapes(std::string_view raw, bool bytes, const std::string& file, Pos at) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    size_t esc = i;
    auto fail = [&](const std::string& msg) {
      Pos p = advance_pos(at, raw.substr(0, esc));
      throw Error(msg, SourceLoc{file, p.line, p.col});
    };
    char d = raw[++i];
    switch (d) {
      case '\n':
        break;
      case '\r':
        if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        uint32_t v = 0;
        int n = 0;
        while (n < 3 && i < raw.size() && raw[i] >= '0' && raw[i] <= '7') {
          v = v * 8 + (raw[i] - '0');
          ++i;
          ++n;
        }
        --i;
        if (bytes)
          out += char(v & 0xFF);
        else
          append_utf8(out, v);
        break;
      }
      case 'x': {
        if (i + 2 >= raw.size() || !is_hex(raw[i + 1]) || !is_hex(raw[i + 2]))
          fail("invalid \\x escape: expected two hexadecimal digits");
        uint32_t v = hex_val(raw[i + 1]) * 16 + hex_val(raw[i + 2]);
        i += 2;
        if (bytes)
          out += char(v);
        else
          append_utf8(out, v);
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) {
          out += '\\';
          out += d;
          break;
        }
        int n = d == 'u' ? 4 : 8;
        uint32_t v = 0;
        for (int k = 1; k <= n; ++k) {
          if (i + k >= raw.size() || !is_hex(raw[i + k]))
            fail(std::string("invalid \\") + d + " escape: expected " + std::to_string(n) + " hexadecimal digits");
          v = v * 16 + hex_val(raw[i + k]);
        }
        if (v > 0x10FFFF) fail("invalid \\U escape: code point out of range");
        i += n;
        append_utf8(out, v);
        break;
      }
      case 'N':
        if (bytes) {
          out += "\\N";
          break;
        }
        fail("\\N{...} escapes are not supported");
        break;  // not reached: fail() throws
      default:
        out += '\\';
        out += d;
    }
  }
  return out;
}

std::vector<Token> tokenize(std::string_view src, const std::string& file, const LexOptions& opts,
                            std::vector<Token>* partial) {
  Lexer lx(src, file, opts);
  try {
    return lx.run();
  } catch (Error&) {
    if (partial) *partial = lx.take_tokens();
    throw;
  }
}

}  // namespace nkisim::frontend
