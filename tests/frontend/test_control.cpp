// test_control.cpp - registers and dynamic loops in the front end (frontend/nki_control.cpp): the IR they
// build (loop_begin/loop_end around a body evaluated once) and the exact, located errors.
#include "helpers.h"

#include "frontend/compile.h"
#include "ir/kernel.h"
#include "isa/target.h"

namespace {
const char* kHead = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n@nki.jit\ndef k(x):\n";

std::string kernel_error(const std::string& body) {
  fe::CompileOptions o;
  o.inputs = {spec({128, 4})};
  return compile_error(std::string(kHead) + body + "    return x\n", o);
}

nkisim::ir::Kernel kernel_ir(const std::string& body) {
  TempKernel k(std::string(kHead) + body + "    return x\n");
  fe::CompileOptions o;
  o.inputs = {spec({128, 4})};
  return fe::compile_to_ir(k.path, o);
}
}  // namespace

TEST_CASE("control: a fori_loop body is evaluated once between loop_begin and loop_end") {
  auto k = kernel_ir(
      "    t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    def body(i):\n"
      "        nisa.memset(dst=t, value=1.0)\n"
      "    nl.fori_loop(2, 10, body, step=3)\n");
  using nkisim::ir::Ctl;
  using nkisim::isa::Opcode;
  REQUIRE(k.ops.size() == 5);
  CHECK(k.num_vregs == 1);
  CHECK(k.ops[0].opcode == Opcode::reg_set);  // i = 2
  CHECK(k.ops[0].params.rimm == 2);
  CHECK(k.ops[1].ctl == Ctl::loop_begin);  // while i < 10
  CHECK(k.ops[1].params.op0 == nkisim::isa::AluOp::less);
  CHECK(k.ops[1].params.rimm == 10);
  CHECK(k.ops[2].opcode == Opcode::memset);
  CHECK(k.ops[3].opcode == Opcode::reg_alu);  // i += 3
  CHECK(k.ops[3].params.rimm == 3);
  CHECK(k.ops[4].ctl == Ctl::loop_end);
  CHECK(k.ops[2].loc.line == 9);
}

TEST_CASE("control: a register in if / int() / range() is a located TypeError") {
  CHECK(kernel_error("    r = nisa.register_alloc(3)\n    if r:\n        pass\n") ==
        "8:8: a VirtualRegister's value is only known at run time: it cannot be used as a condition (use "
        "nl.while_loop)");
  CHECK(kernel_error("    r = nisa.register_alloc(3)\n    y = int(r)\n") ==
        "8:9: int() argument must be a string or a number, not 'VirtualRegister'");
  CHECK(kernel_error("    r = nisa.register_alloc(3)\n    for i in range(r):\n        pass\n") ==
        "8:14: range() arguments must be integers, not 'VirtualRegister'");
}

TEST_CASE("control: loop and register argument errors") {
  const std::string r = "    r = nisa.register_alloc(3)\n";
  CHECK(kernel_error(r + "    nl.fori_loop(0, 4, lambda i: None, step=r)\n") ==
        "8:5: fori_loop: step must be a positive compile-time int, got a VirtualRegister");
  CHECK(kernel_error(r + "    for i in nl.dynamic_range(0, 4, r):\n        pass\n") ==
        "8:14: dynamic_range: step must be a positive compile-time int, got a VirtualRegister");
  CHECK(kernel_error(r + "    for i in nl.dynamic_range(0, 4, 0):\n        pass\n") ==
        "8:14: dynamic_range: step must be a positive compile-time int, got 0");
  CHECK(kernel_error(r + "    for i in nl.dynamic_range(r):\n        nisa.register_move(i, 1)\n") ==
        "9:9: register_move: cannot write the induction variable of a dynamic loop");
  CHECK(kernel_error(r + "    for i in nl.dynamic_range(r):\n        break\n") ==
        "8:5: 'break' is not supported in a dynamic loop");
  CHECK(kernel_error(r + "    nl.fori_loop(0, r, lambda i: 5)\n") == "8:5: fori_loop: body_fun must return None, got 'int'");
  CHECK(kernel_error(r + "    nl.while_loop(r, lambda c: 'x')\n") ==
        "8:5: while_loop: body_fun must return the next condition (a VirtualRegister or an int), got 'str'");
  CHECK(kernel_error("    r = nisa.register_alloc(1 << 33)\n") ==
        "7:9: register_alloc: x 8589934592 does not fit in a 32-bit register");
  CHECK(kernel_error(r + "    nisa.register_load(r, x)\n") ==
        "8:5: register_load: operand 'src' must be a single element of at most 32 bits, got 512 elements of float32");
  CHECK(kernel_error(r + "    nisa.register_store(x[0:1, 0:1], 3)\n") ==
        "8:5: register_store: src must be a VirtualRegister, got 'int'");
  CHECK(kernel_error(r + "    nisa.register_move(3, r)\n") ==
        "8:5: register_move: dst must be a VirtualRegister, got 'int'");
}

TEST_CASE("control: more registers than a sequencer has is a located error") {
  std::string body;
  for (int i = 0; i < 64; ++i) body += "    r" + std::to_string(i) + " = nisa.register_alloc(" + std::to_string(i) + ")\n";
  body += "    def f(i):\n        pass\n    nl.fori_loop(0, 2, f)\n";
  TempKernel k(std::string(kHead) + body + "    return x\n");
  fe::CompileOptions o;
  o.inputs = {spec({128, 4})};
  try {
    fe::compile(k.path, o, *nkisim::isa::find_target("trn2"));
    FAIL("expected an error");
  } catch (const nkisim::Error& e) {
    CHECK(std::string(e.what()) ==
          "too many registers: the kernel needs 66 (65 virtual, 1 counter per dynamic loop) but a sequencer has 64");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 73);
  }
}
