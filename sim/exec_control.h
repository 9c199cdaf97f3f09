// exec_control.h - sequencer control flow helpers shared by the executors (sim/exec_control_regs.cpp) and
// both schedulers (timed: sim/scheduler.cpp, functional: run_functional). Internal to sim/.
#pragma once
#include <cstdint>

#include "sim/exec.h"

namespace nkisim::sim {

inline constexpr uint16_t kNoRegister = 65535;  // params.rs1: use the immediate rimm

// The sequencer instructions (isa::Trait::SEQUENCER) run in the sequencer once its stream drained.
bool reg_alu_supported(isa::AluOp op);
int32_t reg_alu_eval(isa::AluOp op, int32_t a, int32_t b);
// Validation of register indices, branch targets, semaphores and single-element operands (located errors).
void check_sequencer(const ExecContext& ctx, int engine, const isa::Instruction& ins);
bool branch_taken(ExecContext& ctx, const isa::Instruction& ins);
int64_t sem_wait_reg_threshold(const ExecContext& ctx, const isa::Instruction& ins);
// The run-time guard against endless dynamic loops: a located error at the branch.
[[noreturn]] void loop_budget_error(const ExecContext& ctx, const isa::Instruction& ins, uint64_t budget);

}  // namespace nkisim::sim
