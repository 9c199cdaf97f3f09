// exec_control_regs.cpp - sequencer registers and dynamic control flow: reg_set, reg_alu, reg_load,
// reg_store, branch, sem_wait_reg (semantics in isa/instructions.def, design in docs/dynamic-loops.md).
// The scheduler runs these in the issuing sequencer once its stream has drained (sim/scheduler.cpp); the
// register file of engine e is ExecContext::regs[e].
#include <cstring>

#include "sim/exec.h"
#include "sim/exec_control.h"

namespace nkisim::sim {
using isa::AluOp;
using isa::Opcode;

int32_t reg_alu_eval(AluOp op, int32_t a, int32_t b) {
  const uint32_t ua = uint32_t(a), ub = uint32_t(b);
  switch (op) {
    case AluOp::bypass: return a;
    case AluOp::add: return int32_t(ua + ub);  // wraps
    case AluOp::subtract: return int32_t(ua - ub);
    case AluOp::multiply: return int32_t(ua * ub);
    case AluOp::maximum: return a > b ? a : b;
    case AluOp::minimum: return a < b ? a : b;
    case AluOp::bitwise_and: return int32_t(ua & ub);
    case AluOp::bitwise_or: return int32_t(ua | ub);
    case AluOp::bitwise_xor: return int32_t(ua ^ ub);
    case AluOp::left_shift: return ub >= 32 ? 0 : int32_t(ua << ub);
    case AluOp::right_shift: return ub >= 32 ? 0 : int32_t(ua >> ub);  // logical
    case AluOp::equal: return a == b;
    case AluOp::not_equal: return a != b;
    case AluOp::greater: return a > b;
    case AluOp::greater_equal: return a >= b;
    case AluOp::less: return a < b;
    case AluOp::less_equal: return a <= b;
    case AluOp::logical_and: return a != 0 && b != 0;
    case AluOp::logical_or: return a != 0 || b != 0;
    default: return 0;  // rejected by isa/verify_control_regs.cpp
  }
}

namespace {
int32_t& reg(ExecContext& ctx, const isa::Instruction& ins, uint16_t r) { return ctx.regs[size_t(ins.engine)][r]; }
int32_t second(ExecContext& ctx, const isa::Instruction& ins) {
  return ins.params.rs1 == kNoRegister ? ins.params.rimm : reg(ctx, ins, ins.params.rs1);
}
}  // namespace

// Register numbers, register ALU operations and operand sizes are isa/verify_control_regs.cpp's; these need the
// program: its semaphore count and the branch's stream.
void check_sequencer(const ExecContext& ctx, int engine, const isa::Instruction& ins) {
  const isa::InstrParams& p = ins.params;
  const isa::InstrInfo& inf = isa::info(ins.op);
  switch (ins.op) {
    case Opcode::branch:
      if (p.target < 0 || size_t(p.target) > ctx.program.streams[size_t(engine)].size())
        ctx.fail(ins, "branch: target " + std::to_string(p.target) + " outside the stream [0, " +
                          std::to_string(ctx.program.streams[size_t(engine)].size()) + "]");
      break;
    case Opcode::core_barrier:
    case Opcode::sendrecv:
      if (p.sem >= ctx.program.num_semaphores)
        ctx.fail(ins, std::string(inf.mnemonic) + ": uses semaphore " + std::to_string(p.sem) + " but the program has " +
                          std::to_string(ctx.program.num_semaphores));
      break;
    case Opcode::sem_wait_reg:
      if (p.sem >= ctx.program.num_semaphores)
        ctx.fail(ins, "sem_wait_reg: waits on semaphore " + std::to_string(p.sem) + " but the program has " +
                          std::to_string(ctx.program.num_semaphores));
      break;
    default: break;
  }
}

bool branch_taken(ExecContext& ctx, const isa::Instruction& ins) {
  if (ins.params.op0 == AluOp::bypass) return true;
  return reg_alu_eval(ins.params.op0, reg(ctx, ins, ins.params.rs0), second(ctx, ins)) != 0;
}

int64_t sem_wait_reg_threshold(const ExecContext& ctx, const isa::Instruction& ins) {
  const int32_t r = ctx.regs[size_t(ins.engine)][ins.params.rs0];
  return int64_t(r) * int64_t(ins.params.rmul) + int64_t(ins.params.rimm);
}

void loop_budget_error(const ExecContext& ctx, const isa::Instruction& ins, uint64_t budget) {
  ctx.fail(ins, "dynamic loop: the " + std::string(isa::engine_name(ins.engine)) + " engine took more than " +
                    std::to_string(budget) + " branches (raise the limit with --max-loop-iterations)");
}

void exec_reg_set(ExecContext& ctx, const isa::Instruction& ins) { reg(ctx, ins, ins.params.rd) = ins.params.rimm; }

void exec_reg_alu(ExecContext& ctx, const isa::Instruction& ins) {
  reg(ctx, ins, ins.params.rd) = reg_alu_eval(ins.params.op0, reg(ctx, ins, ins.params.rs0), second(ctx, ins));
}

void exec_reg_load(ExecContext& ctx, const isa::Instruction& ins) {
  View v = ctx.read(ins, 0);
  uint32_t bits = 0;
  std::memcpy(&bits, v.row(0), v.esize);
  const unsigned width = v.esize * 8;
  if (width < 32 && isa::dtype_kind(v.dtype) == isa::DTypeKind::SInt && (bits >> (width - 1)) & 1u)
    bits |= ~((1u << width) - 1u);  // sign-extend
  reg(ctx, ins, ins.params.rd) = int32_t(bits);
}

void exec_reg_store(ExecContext& ctx, const isa::Instruction& ins) {
  View v = ctx.write(ins, 0);
  const uint32_t bits = uint32_t(reg(ctx, ins, ins.params.rs0));
  std::memcpy(v.row(0), &bits, v.esize);  // little-endian: the low bytes
}

void exec_branch(ExecContext&, const isa::Instruction&) {}        // the scheduler moves the pc (branch_taken)
void exec_sem_wait_reg(ExecContext&, const isa::Instruction&) {}  // the scheduler waits (sem_wait_reg_threshold)
void exec_core_barrier(ExecContext&, const isa::Instruction&) {}  // the scheduler signals and waits

}  // namespace nkisim::sim
