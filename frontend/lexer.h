// lexer.h - Python 3.11 tokenizer: tokens with 1-based source spans; malformed input -> located Error.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isa/diagnostic.h"

namespace nkisim::frontend {

enum class Tok : uint8_t { EndMarker, Name, Int, Float, Imag, String, Newline, Indent, Dedent, Op };

// Operators and delimiters.
enum class Op : uint8_t {
  None,
  LPar,
  RPar,
  LSqb,
  RSqb,
  LBrace,
  RBrace,
  Colon,
  Comma,
  Semi,
  Plus,
  Minus,
  Star,
  Slash,
  VBar,
  Amper,
  Less,
  Greater,
  Equal,
  Dot,
  Percent,
  EqEqual,
  NotEqual,
  LessEqual,
  GreaterEqual,
  Tilde,
  Circumflex,
  LeftShift,
  RightShift,
  DoubleStar,
  PlusEqual,
  MinEqual,
  StarEqual,
  SlashEqual,
  PercentEqual,
  AmperEqual,
  VBarEqual,
  CircumflexEqual,
  LeftShiftEqual,
  RightShiftEqual,
  DoubleStarEqual,
  DoubleSlash,
  DoubleSlashEqual,
  At,
  AtEqual,
  RArrow,
  Ellipsis,
  ColonEqual,
  Exclamation
};
std::string_view op_text(Op op);

// String literal flags.
enum StrFlag : uint8_t { SF_Bytes = 1, SF_Raw = 2, SF_FString = 4, SF_Triple = 8 };

// A position: 1-based line and column (columns are byte offsets + 1, as Python's col_offset + 1).
struct Pos {
  uint32_t line = 0, col = 0;
};

struct Token {
  Tok kind = Tok::EndMarker;
  Op op = Op::None;
  uint8_t str_flags = 0;
  bool overflow = false;  // Int: the literal does not fit in 64 bits
  Pos pos, end;           // end = position just past the token
  // Name: the identifier. String: the decoded value (f-string: the raw body between the quotes).
  // Int/Float/Imag: the literal's source text.
  std::string text;
  int64_t ival = 0;
  double fval = 0;
  Pos body;  // f-string: position of the first body character
};

struct LexOptions {
  Pos start{1, 1};              // position of the first character of `src`
  bool implicit_paren = false;  // tokenise as if inside parentheses (f-string replacement fields)
};

// Tokenises `src`. Always ends with Newline? Dedent* EndMarker. Throws nkisim::Error located in `file`; then
// `*partial` (when given) holds the tokens before the error.
std::vector<Token> tokenize(std::string_view src, const std::string& file, const LexOptions& opts = {},
                            std::vector<Token>* partial = nullptr);

// Decodes the escape sequences of a (non-raw) string literal body. `at` locates errors.
std::string decode_escapes(std::string_view raw, bool bytes, const std::string& file, Pos at);

// Appends the UTF-8 encoding of code point `cp`.
void append_utf8(std::string& out, uint32_t cp);

}  // namespace nkisim::frontend
