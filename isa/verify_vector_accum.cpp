// verify_vector_accum.cpp - rules of the instructions that drive the accumulator registers: act_read_accumulator,
// tensor_scalar_reduce, tensor_scalar_cumulative, tensor_tensor_scan, exponential, range_select, select_reduce
// (executors: sim/exec_vector_accum.cpp; activation's accumulator rules are in isa/verify_elementwise.cpp).
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
void accumulator_reduce_op(const Check& c, AluOp op) {
  if (accumulator_op(op)) return;
  c.fail("reduce_op must be add, subtract, multiply, maximum or minimum, got '" + alu(op) + "'");
}
}  // namespace

void verify_act_read_accumulator(const Check& c) { c.free_is(0, 1); }

void verify_tensor_scalar_reduce(const Check& c) {
  c.same_shape(0, 1);
  c.arith(c.pr.op0, "op0");
  accumulator_reduce_op(c, c.pr.reduce_op);
  c.columns({2, 3});
}

void verify_tensor_scalar_cumulative(const Check& c) {
  c.same_shape(0, 1);
  for (int s : {0, 1})
    if (c.dtype(s) == DType::int32 || c.dtype(s) == DType::uint32)
      c.fail("operand '" + std::string(c.name(s)) + "' cannot be " + dt(c.dtype(s)) +
                 " (32-bit integers are not supported)",
             s);
  c.arith(c.pr.op0, "op0");
  if (!accumulator_op(c.pr.op1))
    c.fail("op1 must be add, subtract, multiply, maximum or minimum, got '" + alu(c.pr.op1) + "'");
  c.columns({2, 3});
}

void verify_tensor_tensor_scan(const Check& c) {
  c.same_shape(0, 1);
  c.same_shape(0, 2);
  if (c.mem(1) == Memory::PSUM && c.mem(2) == Memory::PSUM)
    c.fail(std::string(c.name(1)) + " and " + c.name(2) + " cannot both be in PSUM");
  c.arith(c.pr.op0, "op0");
  c.arith(c.pr.op1, "op1");
  c.columns({3});
}

void verify_exponential(const Check& c) {
  c.same_shape(0, 1);
  if (folds(c.pr.reduce_cmd) && c.pr.reduce_op != AluOp::add && c.pr.reduce_op != AluOp::bypass)
    c.fail("reduce_op must be add, got '" + alu(c.pr.reduce_op) + "'");
  c.columns({2, 3});
}

void verify_range_select(const Check& c) {
  c.same_shape(0, 1);
  if (!is_float(c.dtype(1)))
    c.fail("operand '" + std::string(c.name(1)) + "' must have a float dtype, got " + dt(c.dtype(1)), 1);
  for (AluOp op : {c.pr.op0, c.pr.op1})
    if (!(op == AluOp::equal || op == AluOp::less || op == AluOp::less_equal || op == AluOp::greater ||
          op == AluOp::greater_equal))
      c.fail("comparison ops must be equal, less, less_equal, greater or greater_equal, got '" + alu(op) + "'");
  accumulator_reduce_op(c, c.pr.reduce_op);
  if (c.pr.reduce_cmd == ReduceCmd::load_reduce) c.fail("reduce_cmd load_reduce is not supported");
  c.columns({2, 3, 4});
}

void verify_select_reduce(const Check& c) {
  c.same_shape(0, 1);
  c.same_shape(0, 2);
  if (c.mem(1) == Memory::PSUM && c.mem(2) == Memory::PSUM)
    c.fail(std::string(c.name(2)) + " and " + c.name(1) + " cannot both be in PSUM");
  const DType pd = c.dtype(1);  // bool_ (a legacy comparison's result) is a byte holding 0 or 1
  if (!(pd == DType::int8 || pd == DType::uint8 || pd == DType::int16 || pd == DType::uint16 || pd == DType::bool_))
    c.fail("operand '" + std::string(c.name(1)) + "' must be int8, uint8, int16, uint16 or bool, got " + dt(pd), 1);
  accumulator_reduce_op(c, c.pr.reduce_op);
  if (c.pr.reduce_cmd == ReduceCmd::load_reduce) c.fail("reduce_cmd load_reduce is not supported");
  c.columns({3, 4});
}

}  // namespace nkisim::isa::rules
