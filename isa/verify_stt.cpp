// verify_stt.cpp - rules of scalar_tensor_tensor, activate2, nc_n_gather (executors: sim/exec_stt.cpp).
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
bool is_arith_op(AluOp op) { return alu_class(op) == AluClass::Arith; }
}  // namespace

void verify_scalar_tensor_tensor(const Check& c) {
  c.same_shape(0, 1);
  c.same_shape(0, 3);
  if (!is_arith_op(c.pr.op0)) c.fail("op0 must be an arithmetic op, got '" + alu(c.pr.op0) + "'");
  if (!is_arith_op(c.pr.op1)) c.fail("op1 must be an arithmetic op, got '" + alu(c.pr.op1) + "'");
  if (c.mem(1) == Memory::PSUM && c.mem(3) == Memory::PSUM)
    c.fail(std::string(c.name(1)) + " and " + c.name(3) + " cannot both be in PSUM");
  c.columns({2});
}

void verify_activate2(const Check& c) {
  c.same_shape(0, 1);
  const AluOp op0 = c.pr.op0, op1 = c.pr.op1;
  const bool pair_ok = (op0 == AluOp::multiply && (op1 == AluOp::add || op1 == AluOp::subtract || op1 == AluOp::bypass)) ||
                       ((op0 == AluOp::add || op0 == AluOp::subtract || op0 == AluOp::bypass) && op1 == AluOp::bypass);
  if (!pair_ok)
    c.fail("(op0, op1) = (" + alu(op0) + ", " + alu(op1) +
           ") is not supported; allowed: (multiply, add), (multiply, subtract), (multiply, bypass), "
           "(add, bypass), (subtract, bypass), (bypass, bypass)");
  const ReduceCmd cmd = c.pr.reduce_cmd;
  if (c.has(2) && c.has(3) && c.dtype(2) != c.dtype(3))
    c.fail(std::string(c.name(2)) + " and " + c.name(3) + " tiles must have the same dtype, got " + dt(c.dtype(2)) +
           " and " + dt(c.dtype(3)));
  if (cmd == ReduceCmd::load_reduce) c.fail("reduce_cmd load_reduce is not supported by activate2 (no initial value)");
  const AluOp rop = c.pr.reduce_op;
  const bool rop_ok = rop == AluOp::add || rop == AluOp::maximum || rop == AluOp::minimum || rop == AluOp::abs_max ||
                      rop == AluOp::abs_min;
  if ((folds(cmd) || cmd == ReduceCmd::reset) && !rop_ok)
    c.fail("reduce_op must be add, maximum, minimum, abs_max or abs_min, got '" + alu(rop) + "'");
  c.columns({2, 3});
}

void verify_nc_n_gather(const Check& c) {
  if (c.dtype(2) != DType::uint32) c.fail(std::string(c.name(2)) + " must be uint32, got " + dt(c.dtype(2)), 2);
  c.same_shape(0, 2);
  c.same_partitions(0, 1);
  if (c.dtype(0) != c.dtype(1))
    c.fail("dst dtype " + dt(c.dtype(0)) + " differs from data dtype " + dt(c.dtype(1)) + " (a gather copies raw elements)");
}

}  // namespace nkisim::isa::rules
