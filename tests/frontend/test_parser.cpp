// test_parser.cpp - the Python 3.11 grammar: statements, expressions, spans, and located syntax errors.
#include "helpers.h"

TEST_CASE("parser: a broad Python 3.11 file parses") {
  const char* src = R"PY(
"""docstring"""
from __future__ import annotations
import a.b.c as abc, os
from . import sibling
from ..pkg.mod import (x as y, z,)
from m import *

@decorator
@decorator.with_args(1, k=2)
def f(a, b: int = 1, /, c=2, *args, d, e: "str" = 3, **kwargs) -> None:
    global g
    x = y = [1, 2, *rest]
    a, *b, c = range(5)
    (p, q), [r, s] = (1, 2), [3, 4]
    obj.attr[1:2, ::3, ...] = {k: v for k, v in d.items() if k}
    x += 1; x -= 1; x *= 2; x @= m; x //= 3; x **= 2; x >>= 1; x <<= 1; x ^= 1; x |= 1; x &= 1; x %= 5; x /= 2
    y: list[int] = []
    z: int
    lam = lambda a, *b, c=1, **d: (a, b, c, d)
    w = a if b else c if d else e
    v = not a and b or c
    u = a < b <= c != d is not e in f not in g is h
    t = -a ** -b + ~c * d @ e / f // g % h << i >> j & k ^ l | m
    s = f(a, *b, c=d, **e)(g)[h].i
    r = [i for i in range(10) if i % 2 for j in range(i)]
    q = {i for i in x}
    p = (i for i in x)
    o = {**a, 'b': 1}
    n = f"{x!r:>{width}.{prec}f} {y=} {{lit}} {'nested'}"
    if (m := len(x)) > 3:
        pass
    elif m:
        return
    else:
        del x[0], y.z
    for i, j in zip(a, b):
        if i: continue
        break
    else:
        pass
    while x:
        x -= 1
    else:
        pass
    with open(p) as fh, ctx() as (a, b):
        pass
    try:
        raise ValueError("x") from None
    except (TypeError, ValueError) as err:
        pass
    except Exception:
        raise
    else:
        pass
    finally:
        pass
    assert x, "message"
    nonlocal_ok = 1
    return a, b

class C(Base, metaclass=Meta):
    attr: int = 0
    def method(self):
        def inner():
            nonlocal x
            x = 1
        x = 0
        return super().method()
)PY";
  auto m = fe::parse_module(src, "big.py");
  CHECK(m->body.size() == 8);
}

TEST_CASE("parser: spans") {
  auto m = fe::parse_module("x = 1\nif y:\n    foo(a, b=2)\n", "s.py");
  REQUIRE(m->body.size() == 2);
  CHECK(m->body[0]->line == 1);
  CHECK(m->body[0]->col == 1);
  auto* ifs = static_cast<fe::IfStmt*>(m->body[1]);
  auto* call = static_cast<fe::ExprStmt*>(ifs->body[0])->value;
  CHECK(call->kind == fe::NK::Call);
  CHECK(call->line == 3);
  CHECK(call->col == 5);
  CHECK(call->end_col == 16);
}

TEST_CASE("parser: syntax errors are located") {
  CHECK(parse_error("if x\n    pass\n") == "1:5: expected ':'");
  CHECK(parse_error("def f(:)\n") == "1:7: invalid syntax");
  CHECK(parse_error("x = (1 2)\n") == "1:8: expected ')'");
  CHECK(parse_error("  x = 1\n") == "1:1: unexpected indent");
  CHECK(parse_error("if x:\npass\n") == "2:1: expected an indented block after 'if' statement on line 1");
  CHECK(parse_error("def f():\nreturn\n") == "2:1: expected an indented block after function definition on line 1");
  CHECK(parse_error("f() = 1\n") == "1:1: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  CHECK(parse_error("1 = x\n") == "1:1: cannot assign to literal");
  CHECK(parse_error("(a, b) += 1\n") == "1:1: 'tuple' is an illegal expression for augmented assignment");
  CHECK(parse_error("def f(a=1, b):\n  pass\n") == "1:12: non-default argument follows default argument");
  CHECK(parse_error("def f(a, a):\n  pass\n") == "1:10: duplicate argument 'a' in function definition");
  CHECK(parse_error("f(a=1, b)\n") == "1:8: positional argument follows keyword argument");
  CHECK(parse_error("f(a=1, a=2)\n") == "1:8: keyword argument repeated: a");
  CHECK(parse_error("x = f'{}'\n") == "1:8: f-string: empty expression not allowed");
  CHECK(parse_error("x = f'{a'\n") == "1:7: f-string: expecting '}'");
  CHECK(parse_error("x = f'a}'\n") == "1:8: f-string: single '}' is not allowed");
  CHECK(parse_error("x = f'{a!x}'\n") == "1:10: f-string: invalid conversion character: expected 's', 'r', or 'a'");
  CHECK(parse_error("x = f'{a +}'\n") == "1:11: invalid syntax");
  CHECK(parse_error("def f(*):\n pass\n") == "1:8: named arguments must follow bare *");
  CHECK(parse_error("try:\n  pass\nx = 1\n") == "3:1: expected 'except' or 'finally' block");
  CHECK(parse_error("x = 1 if y\n") == "1:11: expected 'else' after 'if' expression");
  CHECK(parse_error("for x in y\n  pass\n") == "1:11: expected ':'");
  CHECK(parse_error("class\n") == "1:6: invalid syntax");
  CHECK(parse_error("x = 'a' b'c'\n") == "1:9: cannot mix bytes and nonbytes literals");
  CHECK(parse_error("break\n") == "1:1: 'break' outside loop");
  CHECK(parse_error("for x in y:\n  def f():\n    continue\n") == "3:5: 'continue' not properly in loop");
  CHECK(parse_error("return 1\n") == "1:1: 'return' outside function");
  CHECK(parse_error("def f():\n  class C:\n    return 1\n") == "3:5: 'return' outside function");
  CHECK(parse_error("x = yield 1\n") == "1:5: 'yield' outside function");
  CHECK(parse_error("def f():\n  while x:\n    if y:\n      break\n  return\n") == "");
}

TEST_CASE("parser: nesting limits never overflow the stack") {
  std::string deep = "x = " + std::string(150, '(') + "1" + std::string(150, ')') + "\n";
  CHECK(parse_error(deep) == "");
  std::string unary = "x = " + std::string(5000, '-') + "1\n";
  CHECK(parse_error(unary).find("too deeply nested") != std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  CHECK(parse_error("x = " + nots + "y\n").find("too deeply nested") != std::string::npos);
  std::string lambdas;
  for (int i = 0; i < 5000; ++i) lambdas += "lambda: ";
  CHECK(parse_error("x = " + lambdas + "1\n").find("too deeply nested") != std::string::npos);
  std::string pows = "x = 2";
  for (int i = 0; i < 5000; ++i) pows += "**2";
  CHECK(parse_error(pows + "\n").find("too deeply nested") != std::string::npos);
  std::string blocks;
  for (int i = 0; i < 99; ++i) blocks += std::string(i, ' ') + "if x:\n";
  blocks += std::string(99, ' ') + "pass\n";
  CHECK(parse_error(blocks) == "");
  std::string flat = "x = 1";
  for (int i = 0; i < 100000; ++i) flat += " + 1";
  CHECK(parse_error(flat + "\n") == "");
}
