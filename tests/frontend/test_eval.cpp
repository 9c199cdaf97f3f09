// test_eval.cpp - the compile-time evaluator: Python semantics, f-strings, control flow, errors, budgets.
#include "helpers.h"

TEST_CASE("eval: integer and float arithmetic follow Python") {
  CHECK(run_py("print(7 // 2, -7 // 2, 7 // -2, -7 // -2)") == "3 -4 -4 3\n");
  CHECK(run_py("print(7 % 3, -7 % 3, 7 % -3, -7 % -3)") == "1 2 -2 -1\n");
  CHECK(run_py("print(7 / 2, 6 / 3, 1 / 3)") == "3.5 2.0 0.3333333333333333\n");
  CHECK(run_py("print(2 ** 10, 2 ** -1, (-2) ** 3, 2.0 ** 0.5)") == "1024 0.5 -8 1.4142135623730951\n");
  CHECK(run_py("print(-7.5 // 2, -7.5 % 2, 7.5 % -2)") == "-4.0 0.5 -0.5\n");
  CHECK(run_py("print(1 + 2.0, 3 * 1.5, True + True, 1 << 10, -16 >> 2, 5 & 3, 5 | 3, 5 ^ 3, ~5)") ==
        "3.0 4.5 2 1024 -4 1 7 6 -6\n");
  CHECK(run_py("print(divmod(-7, 2), divmod(7.5, 2), abs(-3), abs(-2.5), round(2.5), round(3.5), round(2.675, 2))") ==
        "(-4, 1) (3.0, 1.5) 3 2.5 2 4 2.67\n");
  CHECK(run_py("print(0.1 + 0.2, 1e16, 1e-5, 123456789.0, 1.5e300 * 1e10, -0.0, float('nan'))") ==
        "0.30000000000000004 1e+16 1e-05 123456789.0 inf -0.0 nan\n");
  CHECK(run_py("print(int(3.9), int(-3.9), int('42'), int('0x1f', 16), int('ff', 16), float('1.5'), float('-inf'))") ==
        "3 -3 42 31 255 1.5 -inf\n");
  CHECK(run_py("print(9223372036854775807, -9223372036854775808)") == "9223372036854775807 -9223372036854775808\n");
}

TEST_CASE("eval: overflow and division errors are located") {
  CHECK(py_error("x = 1\ny = 9223372036854775807 + x\n") ==
        "2:5: integer overflow: the result does not fit in 64 bits (the compile-time evaluator uses 64-bit integers)");
  CHECK(py_error("x = 2 ** 64\n").find("1:5: integer overflow") == 0);
  CHECK(py_error("x = 1 << 64\n").find("1:5: integer overflow") == 0);
  CHECK(py_error("x = 99999999999999999999\n").find("1:5: integer literal 99999999999999999999 does not fit") == 0);
  CHECK(py_error("x = 1 // 0\n") == "1:5: integer division or modulo by zero");
  CHECK(py_error("x = 1 / 0.0\n") == "1:5: float division by zero");
  CHECK(py_error("x = 1 + 'a'\n") == "1:5: unsupported operand type(s) for +: 'int' and 'str'");
  CHECK(py_error("x = [1] < 'a'\n") == "1:5: '<' not supported between instances of 'list' and 'str'");
}

TEST_CASE("eval: comparisons, identity, boolean logic") {
  CHECK(run_py("print(1 < 2 < 3, 1 < 3 < 2, 1 == 1.0, 'a' < 'b', (1, 2) < (1, 3), [1] == [1])") ==
        "True False True True True True\n");
  CHECK(run_py("x = None\nprint(x is None, x is not None, 1 in [1, 2], 3 not in (1, 2), 'b' in 'abc')") ==
        "True False True True True\n");
  CHECK(run_py("print(0 or 'x', 1 and 2, None or [] or 3, not 0, 1 if 0 else 2)") == "x 2 3 True 2\n");
  CHECK(run_py("def f():\n  print('called')\n  return 1\nx = 0 and f()\ny = 1 or f()\nprint(x, y)") == "0 1\n");
}

TEST_CASE("eval: strings, slicing, containers and their methods") {
  CHECK(run_py("s = 'hello world'\nprint(s[0], s[-1], s[1:4], s[::-1], s[::2], len(s))") ==
        "h d ell dlrow olleh hlowrd 11\n");
  CHECK(run_py("l = [0, 1, 2, 3, 4, 5]\nprint(l[1:-1], l[::2], l[5:1:-2], l[-100:100], l[3:1])") ==
        "[1, 2, 3, 4] [0, 2, 4] [5, 3] [0, 1, 2, 3, 4, 5] []\n");
  CHECK(run_py("print(','.join(['a', 'b']), 'a,b,,c'.split(','), ' x y '.split(), 'AbC'.lower(), 'ab'.upper())") ==
        "a,b ['a', 'b', '', 'c'] ['x', 'y'] abc AB\n");
  CHECK(run_py("print('abc'.startswith('ab'), 'abc'.endswith(('x', 'c')), 'aXbX'.replace('X', '-'), '  s '.strip())") ==
        "True True a-b- s\n");
  CHECK(run_py("print('{} and {:>4} {name}'.format(1, 'x', name='n'), '%d-%s-%.2f' % (3, 'a', 1.234), '%5d|' % 42)") ==
        "1 and    x n 3-a-1.23    42|\n");
  CHECK(run_py("l = [3, 1, 2]\nl.append(4)\nl.extend([5])\nl.insert(0, 9)\nl.sort()\nprint(l, l.pop(), l.index(3), "
               "l.count(1))") == "[1, 2, 3, 4, 5] 9 2 1\n");
  CHECK(run_py("d = {'a': 1}\nd['b'] = 2\nd.setdefault('c', 3)\nprint(d, d.get('x', 0), list(d.keys()), d.pop('a'), "
               "len(d))") == "{'b': 2, 'c': 3} 0 ['a', 'b', 'c'] 1 2\n");
  CHECK(run_py("d = {'x': 1, 'y': 2}\nfor k, v in d.items():\n  print(k, v)") == "x 1\ny 2\n");
  CHECK(run_py("s = {1, 2}\ns.add(3)\nprint(sorted(s), 2 in s, len(s | {9}), s & {1, 7})") == "[1, 2, 3] True 4 {1}\n");
  CHECK(run_py("t = (1, 2) + (3,)\nprint(t, t * 2, [0] * 3, 'ab' * 2, (1,), ())") ==
        "(1, 2, 3) (1, 2, 3, 1, 2, 3) [0, 0, 0] abab (1,) ()\n");
  CHECK(run_py("l = [1, 2, 3, 4]\nl[1:3] = [9]\ndel l[0]\nprint(l)") == "[9, 4]\n");
  CHECK(py_error("l = [1]\nx = l[5]\n") == "2:5: list index out of range");
  CHECK(py_error("d = {}\nx = d['k']\n") == "2:5: 'k'");
}

TEST_CASE("eval: unpacking, loops, comprehensions") {
  CHECK(run_py("a, (b, c), *d = 1, (2, 3), 4, 5\nprint(a, b, c, d)") == "1 2 3 [4, 5]\n");
  CHECK(run_py("first, *mid, last = range(5)\nprint(first, mid, last)") == "0 [1, 2, 3] 4\n");
  CHECK(run_py("x = y = 3\nx += 1\nprint(x, y)") == "4 3\n");
  CHECK(run_py("for i in range(10):\n  if i == 2: continue\n  if i == 4: break\n  print(i)\nelse:\n  print('no')") ==
        "0\n1\n3\n");
  CHECK(run_py("for i in []:\n  pass\nelse:\n  print('else')\nn = 3\nwhile n:\n  n -= 1\nelse:\n  print('done', n)") ==
        "else\ndone 0\n");
  CHECK(run_py("print([i * i for i in range(5) if i % 2], {k: v for k, v in zip('ab', (1, 2))}, {x % 2 for x in "
               "range(4)})") == "[1, 9] {'a': 1, 'b': 2} {0, 1}\n");
  CHECK(run_py("print([(i, j) for i in range(3) for j in range(i)], sum(x for x in range(4)))") ==
        "[(1, 0), (2, 0), (2, 1)] 6\n");
  CHECK(run_py("print(list(enumerate('ab', 1)), min(3, 1, 2), max([4, 8]), min([], default=0), sorted([3, 1], "
               "reverse=True))") == "[(1, 'a'), (2, 'b')] 1 8 0 [3, 1]\n");
  CHECK(run_py("print(any([0, 1]), all([1, 0]), list(reversed([1, 2])), sorted(['b', 'a'], key=lambda s: s))") ==
        "True False [2, 1] ['a', 'b']\n");
  CHECK(run_py("if (n := 5) > 3:\n  print(n)\nprint([y for x in range(3) if (y := x * 2)])") == "5\n[2, 4]\n");
  CHECK(py_error("a, b = 1, 2, 3\n") == "1:1: too many values to unpack (expected 2)");
  CHECK(py_error("a, b, c = 1, 2\n") == "1:1: not enough values to unpack (expected 3, got 2)");
}

TEST_CASE("eval: f-strings and format specs") {
  CHECK(run_py("x = 3.14159\nn = 42\nprint(f'{x:.2f} {n:d} {n:>8} {n:<4}| {n:^7}|')") ==
        "3.14 42       42 42  |   42   |\n");
  CHECK(run_py("n = 255\nprint(f'{n:x} {n:X} {n:#x} {n:o} {n:b} {n:08b} {n:,} {1234567:_}')") ==
        "ff FF 0xff 377 11111111 11111111 255 1_234_567\n");
  CHECK(run_py("v = -3.5\nprint(f'{v:+.1f} {v:10.3e} {0.25:%} {1/3:.3g} {v!r} {\"s\"!r} {v=}')") ==
        "-3.5 -3.500e+00 25.000000% 0.333 -3.5 's' v=-3.5\n");
  CHECK(run_py("w, p = 8, 3\nx = 2.5\nprint(f'[{x:>{w}.{p}f}] {{braces}} {\"a\" + \"b\"} {[1, 2][0]}')") ==
        "[   2.500] {braces} ab 1\n");
  CHECK(run_py("s = 'hi'\nprint(f'{s:*^6}|{s:5}|{s!s:>3}|{42:05d}|{-42:06d}')") == "**hi**|hi   | hi|00042|-00042\n");
  CHECK(run_py("print(f'''multi\n{1 +\n 2}''')") == "multi\n3\n");
  CHECK(py_error("x = f'{1:q}'\n") == "1:5: Unknown format code 'q' for object of type 'int'");
}

TEST_CASE("eval: functions, closures, defaults, keywords, varargs") {
  CHECK(run_py("def f(a, b=2, *args, c=3, **kw):\n  return a, b, args, c, kw\nprint(f(1), f(1, 5, 6, c=7, d=8))") ==
        "(1, 2, (), 3, {}) (1, 5, (6,), 7, {'d': 8})\n");
  CHECK(run_py("def outer():\n  n = 0\n  def inc():\n    nonlocal n\n    n += 1\n    return n\n  inc(); inc()\n  "
               "return n\nprint(outer())") == "2\n");
  CHECK(run_py("def mk(k):\n  return lambda x: x * k\nprint(mk(3)(4), (lambda *a: len(a))(1, 2))") == "12 2\n");
  CHECK(run_py("g = 1\ndef f():\n  global g\n  g = 5\nf()\nprint(g)") == "5\n");
  CHECK(run_py("def fact(n):\n  return 1 if n <= 1 else n * fact(n - 1)\nprint(fact(20))") == "2432902008176640000\n");
  CHECK(run_py("def f(x, /, y):\n  return x + y\nargs = (1,)\nkw = {'y': 2}\nprint(f(*args, **kw))") == "3\n");
  CHECK(py_error("def f(a):\n  return a\nf()\n") == "3:1: f() missing 1 required positional argument: 'a'");
  CHECK(py_error("def f(a):\n  return a\nf(1, 2)\n") == "3:1: f() takes 1 positional argument but 2 were given");
  CHECK(py_error("def f(a):\n  return a\nf(b=1)\n") == "3:1: f() got an unexpected keyword argument 'b'");
  CHECK(py_error("def f(a):\n  return a\nf(1, a=2)\n") == "3:1: f() got multiple values for argument 'a'");
  CHECK(py_error("def f():\n  return x + 1\nf()\n") == "2:10: name 'x' is not defined");
  CHECK(py_error("def f():\n  y = x\n  x = 1\nf()\n") == "2:7: local variable 'x' referenced before assignment");
}

TEST_CASE("eval: classes, dataclasses, enums, exceptions") {
  CHECK(
      run_py(
          "class A:\n  k = 10\n  def __init__(self, v):\n    self.v = v\n  def get(self):\n    return self.v + self.k\n"
          "class B(A):\n  def get(self):\n    return super().get() * 2\nprint(A(1).get(), B(2).get(), isinstance(B(0), "
          "A))") == "11 24 True\n");
  CHECK(run_py("from dataclasses import dataclass\n@dataclass\nclass P:\n  x: int\n  y: int = 5\np = P(1)\nprint(p.x, "
               "p.y, p)") == "1 5 P(x=1, y=5)\n");
  CHECK(run_py("from enum import Enum\nclass C(Enum):\n  RED = 1\n  BLUE = 2\nprint(C.RED.name, C.BLUE.value, C(2) == "
               "C.BLUE, C.RED, [c.name for c in C])") == "RED 2 True C.RED ['RED', 'BLUE']\n");
  CHECK(run_py("class P:\n  @property\n  def two(self):\n    return 2\n  @staticmethod\n  def s(x):\n    return "
               "x\nprint(P().two, P.s(3))") == "2 3\n");
  CHECK(run_py("try:\n  x = 1 // 0\nexcept ZeroDivisionError as e:\n  print('caught', e)\nfinally:\n  print('fin')") ==
        "caught integer division or modulo by zero\nfin\n");
  CHECK(run_py("try:\n  raise ValueError('bad')\nexcept (TypeError, ValueError) as e:\n  print(type(e).__name__, e)") ==
        "ValueError bad\n");
  CHECK(run_py("try:\n  import not_a_module_xyz.sub\nexcept ImportError:\n  print('no')\nelse:\n  print('opaque import "
               "ok')") == "opaque import ok\n");
  CHECK(py_error("class E(Exception):\n  pass\nraise E('boom')\n") == "3:1: E: boom");
}

TEST_CASE("eval: assert, print and undefined names are located") {
  CHECK(py_error("x = 3\nassert x < 2, f'x too big: {x}'\n") == "2:1: assertion failed: x too big: 3");
  CHECK(py_error("assert False\n") == "1:1: assertion failed");
  CHECK(py_error("y = undefined_name + 1\n") == "1:5: name 'undefined_name' is not defined");
  std::string out;
  fe::InterpOptions o;
  o.print_sink = &out;
  {
    fe::Interp in(o);
    in.load_main("k.py", "x = 1\nprint('value', x, sep='=')\n", "k");
  }
  CHECK(out == "k.py:2: value=1\n");
}

TEST_CASE("eval: host code under __main__ does not run, __name__ is the module name") {
  CHECK(run_py("print(__name__)\nif __name__ == '__main__':\n  print('host')\n") == "snippet\n");
  CHECK(run_py("import numpy as np\nimport torch\n@torch.no_grad()\ndef host():\n  return np.zeros(3)\nprint('ok')") ==
        "ok\n");
  // Module-level statements that fail on host-only values leave their names opaque instead of failing.
  CHECK(run_py("import numpy as np\ndef f():\n  return np.random.rand(3) * 2\nx = f()\nfor i in x:\n  y = i\n"
               "print(np.prod((2, 3)), np.float32, x is not None)\n") == "6 float32 True\n");
  CHECK(py_error("import numpy as np\nx = np.zeros(3)\nassert x\n") == "no error");
}

TEST_CASE("eval: math module") {
  CHECK(run_py("import math\nprint(math.ceil(2.1), math.floor(-2.1), math.sqrt(16), math.gcd(12, 18), math.log2(8))") ==
        "3 -3 4.0 6 3.0\n");
  CHECK(run_py(
            "import math\nprint(math.pi, math.inf, -math.inf, round(math.erf(1), 6), math.exp(0), math.log(math.e))") ==
        "3.141592653589793 inf -inf 0.842701 1.0 1.0\n");
  CHECK(py_error("import math\nx = math.sqrt(-1)\n") == "2:5: math domain error");
}

TEST_CASE("eval: budgets and recursion limits are errors, never hangs or crashes") {
  fe::InterpOptions small;
  small.step_budget = 10000;
  CHECK(py_error("while True:\n  pass\n", small).find("evaluation step budget exceeded (10000 steps)") !=
        std::string::npos);
  // Recursion runs through compile_to_ir, on the evaluator's own large-stack thread (as in nki-sim), so the
  // Python frame limit is what stops it in every build type (-O0 frames are several times larger).
  fe::CompileOptions one;
  one.inputs = {spec({1, 1})};
  const std::string rec = "import nki\ndef f(n):\n  return f(n + 1){deep}\n@nki.jit\ndef k(x):\n  f(0)\n";
  CHECK(compile_error(std::string(rec).replace(rec.find("{deep}"), 6, ""), one) ==
        "3:10: maximum recursion depth exceeded (1000 Python frames; raise the limit with --max-recursion N)");
  std::string deep = "x = 1";
  for (int i = 0; i < 100000; ++i) deep += " + 1";
  CHECK(py_error(deep + "\n") == "1:5: expression too deeply nested (more than 1000 levels)");
  std::string ok = "x = 1";
  for (int i = 0; i < 900; ++i) ok += " + 1";
  CHECK(run_py(ok + "\nprint(x)\n") == "901\n");
  // Deep Python recursion with deep expressions inside stays within the evaluator's stack limit.
  CHECK(compile_error(std::string(rec).replace(rec.find("{deep}"), 6,
                                               " + " + std::string(150, '(') + "1" + std::string(150, ')')),
                      one)
            .find("maximum recursion depth exceeded") != std::string::npos);
  CHECK(run_py("a = []\nfor i in range(100000):\n  a.append(i)\nprint(len(a))") == "100000\n");
}
