// verify_control_regs.cpp - rules of the sequencer register instructions reg_set, reg_alu, reg_load, reg_store,
// branch, sem_wait_reg and of core_barrier (executors: sim/exec_control_regs.cpp): register numbers within the
// target's register file, register ALU operations, single-element memory operands. Semaphore numbers and branch
// targets depend on the program (its semaphore count, the stream's length): sim/exec_control_regs.cpp
// check_sequencer.
#include <algorithm>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint16_t kNoRegister = 65535;  // params.rs1: use the immediate rimm

void reg(const Check& c, uint16_t r, const char* field) {
  const auto nregs = uint32_t(std::max(0.0, c.t.sequencer_registers));
  if (r >= nregs)
    c.fail("register " + std::string(field) + "=" + std::to_string(r) + " out of range [0, " + std::to_string(nregs) +
           ")");
}

// The int32 operations of reg_alu and branch (instructions.def, "Sequencer registers").
bool reg_alu_op(AluOp op) {
  switch (op) {
    case AluOp::bypass: case AluOp::add: case AluOp::subtract: case AluOp::multiply: case AluOp::maximum:
    case AluOp::minimum: case AluOp::bitwise_and: case AluOp::bitwise_or: case AluOp::bitwise_xor:
    case AluOp::left_shift: case AluOp::right_shift: case AluOp::equal: case AluOp::not_equal:
    case AluOp::greater: case AluOp::greater_equal: case AluOp::less: case AluOp::less_equal:
    case AluOp::logical_and: case AluOp::logical_or:
      return true;
    default:
      return false;
  }
}

// reg_alu and branch: source registers (none for an unconditional branch) and the operation.
void register_alu(const Check& c, bool reads) {
  if (reads) {
    reg(c, c.pr.rs0, "rs0");
    if (c.pr.rs1 != kNoRegister) reg(c, c.pr.rs1, "rs1");
  }
  if (!reg_alu_op(c.pr.op0)) c.fail("op0=" + alu(c.pr.op0) + " is not a register ALU operation");
}

// reg_load / reg_store: one element of at most 32 bits.
void single_element(const Check& c) {
  const AccessPattern& ap = c.op(0);
  if (ap.total_elements() != 1 || dtype_size(ap.dtype) > 4)
    c.fail("operand '" + std::string(c.name(0)) + "' must be a single element of at most 32 bits, got " +
               std::to_string(ap.total_elements()) + " elements of " + dt(ap.dtype),
           0);
}
}  // namespace

void verify_reg_set(const Check& c) { reg(c, c.pr.rd, "rd"); }

void verify_reg_alu(const Check& c) {
  reg(c, c.pr.rd, "rd");
  register_alu(c, true);
}

void verify_reg_load(const Check& c) {
  reg(c, c.pr.rd, "rd");
  single_element(c);
}

void verify_reg_store(const Check& c) {
  reg(c, c.pr.rs0, "rs0");
  single_element(c);
}

void verify_branch(const Check& c) { register_alu(c, c.pr.op0 != AluOp::bypass); }

void verify_sem_wait_reg(const Check& c) { reg(c, c.pr.rs0, "rs0"); }

void verify_core_barrier(const Check&) {}  // its semaphore is the program's (check_sequencer)

}  // namespace nkisim::isa::rules
