// exec_control.h - sequencer control flow helpers shared by the executors (sim/exec_control_regs.cpp) and
// both schedulers (timed: sim/scheduler.cpp, functional: run_functional). Internal to sim/.
#pragma once
#include <cstdint>

#include "sim/exec.h"

namespace nkisim::sim {

inline constexpr uint16_t kNoRegister = 65535;  // params.rs1: use the immediate rimm

int32_t reg_alu_eval(isa::AluOp op, int32_t a, int32_t b);
// Validation of what needs the program: branch targets and semaphore numbers (located errors; the rest of the
// sequencer rules are isa/verify_control_regs.cpp's).
void check_sequencer(const ExecContext& ctx, int engine, const isa::Instruction& ins);
bool branch_taken(ExecContext& ctx, const isa::Instruction& ins);
int64_t sem_wait_reg_threshold(const ExecContext& ctx, const isa::Instruction& ins);
// The run-time guard against endless dynamic loops: a located error at the branch.
[[noreturn]] void loop_budget_error(const ExecContext& ctx, const isa::Instruction& ins, uint64_t budget);

}  // namespace nkisim::sim
