// test_lexer.cpp - tokenizer: tokens, spans, numbers, strings, indentation, and located errors.
#include "helpers.h"

using fe::Tok;

static std::vector<fe::Token> lex(const std::string& s) { return fe::tokenize(s, "t.py"); }

static std::string lex_error(const std::string& s) {
  try {
    fe::tokenize(s, "t.py");
  } catch (nkisim::Error& e) {
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "";
}

TEST_CASE("lexer: names, operators, spans") {
  auto t = lex("x = a**2 // b\n");
  REQUIRE(t.size() == 9);
  CHECK(t[0].kind == Tok::Name);
  CHECK(t[0].text == "x");
  CHECK(t[1].op == fe::Op::Equal);
  CHECK(t[3].op == fe::Op::DoubleStar);
  CHECK(t[5].op == fe::Op::DoubleSlash);
  CHECK(t[5].pos.line == 1);
  CHECK(t[5].pos.col == 10);
  CHECK(t[5].end.col == 12);
  CHECK(t[7].kind == Tok::Newline);
  CHECK(t[8].kind == Tok::EndMarker);
}

TEST_CASE("lexer: all operators tokenise") {
  auto t = lex("a += b -= c *= d /= e //= f %= g **= h >>= i <<= j &= k |= l ^= m @= n -> o := p != q ... r ~ s\n");
  int ops = 0;
  for (auto& x : t) ops += x.kind == Tok::Op;
  CHECK(ops == 18);
}

TEST_CASE("lexer: numbers") {
  auto t = lex("0x_ff 0o17 0b1010 1_000 3.5 1e3 .5 5. 2j 0 00 1.5e-3\n");
  CHECK(t[0].ival == 255);
  CHECK(t[1].ival == 15);
  CHECK(t[2].ival == 10);
  CHECK(t[3].ival == 1000);
  CHECK(t[4].kind == Tok::Float);
  CHECK(t[4].fval == 3.5);
  CHECK(t[5].fval == 1000.0);
  CHECK(t[6].fval == 0.5);
  CHECK(t[7].fval == 5.0);
  CHECK(t[8].kind == Tok::Imag);
  CHECK(t[9].ival == 0);
  CHECK(t[10].ival == 0);
  CHECK(t[11].fval == doctest::Approx(0.0015));
  auto big = lex("99999999999999999999\n");
  CHECK(big[0].overflow);
}

TEST_CASE("lexer: strings and escapes") {
  auto t = lex("'a\\nb' \"q'\" r'\\n' b'x' '''tri\nple''' '\\x41\\u00e9\\101'\n");
  CHECK(t[0].text == "a\nb");
  CHECK(t[1].text == "q'");
  CHECK(t[2].text == "\\n");
  CHECK((t[3].str_flags & fe::SF_Bytes));
  CHECK(t[4].text == "tri\nple");
  CHECK(t[5].text ==
        "A\xc3\xa9"
        "A");
  auto f = lex("f'{x!r:>{w}}'\n");
  CHECK((f[0].str_flags & fe::SF_FString));
  CHECK(f[0].text == "{x!r:>{w}}");
  CHECK(f[0].body.col == 3);
}

TEST_CASE("lexer: indentation, continuation and brackets") {
  auto t = lex("if x:\n    y = (1,\n  2)\n    z = 1 + \\\n 2\nw\n");
  std::vector<Tok> kinds;
  for (auto& x : t) kinds.push_back(x.kind);
  int indents = 0, dedents = 0, newlines = 0;
  for (auto k : kinds) {
    indents += k == Tok::Indent;
    dedents += k == Tok::Dedent;
    newlines += k == Tok::Newline;
  }
  CHECK(indents == 1);
  CHECK(dedents == 1);
  CHECK(newlines == 4);
  // Comments and blank lines do not affect indentation; tabs count to multiples of 8.
  CHECK_NOTHROW(lex("def f():\n\n    # c\n\tpass\n"));
}

TEST_CASE("lexer: malformed input gives located errors") {
  CHECK(lex_error("x = 'abc\n") == "1:5: unterminated string literal (detected at line 1)");
  CHECK(lex_error("x = '''abc\n\n") == "1:5: unterminated triple-quoted string literal (detected at line 3)");
  CHECK(lex_error("if x:\n    a\n  b\n") == "3:3: unindent does not match any outer indentation level");
  CHECK(lex_error("a = 1 $ 2\n") == "1:7: invalid character '$' (U+0024)");
  CHECK(lex_error("a = (1,\n2]\n") == "2:2: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  CHECK(lex_error("a = 1)\n") == "1:6: unmatched ')'");
  CHECK(lex_error("a = [1,\n") == "1:5: '[' was never closed");
  CHECK(lex_error(std::string("a = 1\0\n", 7)) == "1:6: source code cannot contain null bytes");
  CHECK(lex_error("a = '\xff'\n") == "1:6: invalid UTF-8 in source (byte 0xff)");
  CHECK(lex_error("x = 0x\n") == "1:7: invalid hexadecimal literal");
  CHECK(lex_error("x = 0b102\n") == "1:9: invalid digit '2' in binary literal");
  CHECK(lex_error("x = 012\n") ==
        "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
  CHECK(lex_error("x = 1abc\n") == "1:6: invalid decimal literal");
  CHECK(lex_error("x = 1__0\n") == "1:6: invalid decimal literal");
  CHECK(lex_error("x = \\ y\n") == "1:5: unexpected character after line continuation character");
  CHECK(lex_error("if x:\n\ty\n        z\n") == "3:9: inconsistent use of tabs and spaces in indentation");
  CHECK(lex_error("x = '\\xZZ'\n") == "1:6: invalid \\x escape: expected two hexadecimal digits");
  CHECK(lex_error("x = b'\xc3\xa9'\n") == "1:5: bytes can only contain ASCII literal characters");
  CHECK(lex_error(std::string(250, '(')) == "1:201: too many nested parentheses");
}

TEST_CASE("lexer: binary garbage never crashes") {
  std::string junk;
  uint32_t seed = 12345;
  for (int round = 0; round < 200; ++round) {
    junk.clear();
    for (int i = 0; i < 200; ++i) {
      seed = seed * 1103515245 + 12345;
      junk += char((seed >> 16) & 0xFF);
    }
    try {
      fe::parse_module(junk, "junk.py");
    } catch (nkisim::Error& e) {
      CHECK(e.loc.has_value());
    }
  }
}
