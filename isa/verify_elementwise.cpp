// verify_elementwise.cpp - rules of tensor_tensor, tensor_scalar, activation, memset
// (executors: sim/exec_elementwise.cpp).
#include <cmath>
#include <initializer_list>
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
// A bitvec op works on raw integer bits: every listed operand needs an integer dtype.
void bitvec_integers(const Check& c, AluOp op, std::initializer_list<int> slots) {
  for (int s : slots)
    if (c.has(s) && !is_integer(c.dtype(s)))
      c.fail("bitvec op '" + alu(op) + "' needs integer dtypes, but operand '" + c.name(s) + "' is " + dt(c.dtype(s)),
             s);
}
}  // namespace

void verify_tensor_tensor(const Check& c) {
  c.same_shape(0, 1);
  c.same_shape(0, 2);
  if (c.mem(1) == Memory::PSUM && c.mem(2) == Memory::PSUM)
    c.fail(std::string(c.name(1)) + " and " + c.name(2) + " cannot both be in PSUM");
  if (is_bitvec(c.pr.op0)) bitvec_integers(c, c.pr.op0, {0, 1, 2});
}

void verify_tensor_scalar(const Check& c) {
  c.same_shape(0, 1);
  const bool two = c.pr.op1 != AluOp::bypass;
  const bool bv0 = is_bitvec(c.pr.op0), bv1 = two && is_bitvec(c.pr.op1);
  if (two && c.pr.op0 != AluOp::bypass && bv0 != bv1) c.fail("op0 and op1 must both be bitvec ops or both arithmetic");
  if (bv0 || bv1) bitvec_integers(c, bv0 ? c.pr.op0 : c.pr.op1, {0, 1});
  c.columns({2, 3});
}

void verify_activation(const Check& c) {
  c.same_shape(0, 1);
  const bool bias = c.has(2) || c.pr.bias_imm != 0.0f;
  if (bias && c.pr.func == ActFunc::reciprocal && c.nc() < 3) c.fail("op=reciprocal cannot take a bias on " + c.t.name);
  if (bias && !c.has(2) && c.nc() < 3)
    c.fail("a scalar bias needs trn2 or later; on " + c.t.name + " pass a [" + std::to_string(c.parts(0)) +
           ", 1] bias tile");
  if (c.pr.reduce_cmd == ReduceCmd::load_reduce)
    c.fail("reduce_cmd load_reduce is not supported by activation (no initial value)");
  if (folds(c.pr.reduce_cmd) && c.pr.reduce_op != AluOp::add)
    c.fail("reduce_op must be add, got '" + alu(c.pr.reduce_op) + "'");
  c.columns({2, 3});
}

// Any dst in SBUF or PSUM (the table's memories); the value (imm0) must be representable: 0 for a packed MX dtype
// (nki-language.md §3: x4 types hold only zeros when set), an integer for an integer dtype.
void verify_memset(const Check& c) {
  const DType d = c.dtype(0);
  if (dtype_kind(d) == DTypeKind::Packed && c.pr.imm0 != 0.0f)
    c.fail("dst has the packed MX dtype " + dt(d) + "; only value 0 is allowed", 0);
  if (!is_float(d) && c.pr.imm0 != std::trunc(c.pr.imm0)) {
    std::ostringstream os;
    os << "value " << c.pr.imm0 << " is not an integer but dst has dtype " << dt(d);
    c.fail(os.str(), 0);
  }
}

}  // namespace nkisim::isa::rules
