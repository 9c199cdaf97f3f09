// scheduler.h - validation of a program before it runs, and simulate()'s input and output helpers. The timing
// side (the discrete-event Scheduler) is in sim/scheduler_impl.h, the two run modes in sim/machine.h.
#pragma once
#include "sim/exec.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// Checks every instruction before anything runs (located Errors): opcode and engine legal for the table,
// the row's operands present / absent / in allowed memories / inside their memory (slots past the row's
// operand count are ignored), semaphore indices in range, DMA queue in range.
void validate_program(const ExecContext& ctx);

// simulate()'s pieces (sim/simulate.cpp).
uint64_t hbm_space_bytes(const isa::Program& p);  // the HBM the program's tensors need
// Checks the inputs against the program's Input tensors and copies them into ctx.mem.hbm (not for a
// timing-only run without inputs).
void bind_inputs(ExecContext& ctx, std::span<const HostArray> inputs, const Options& opts);

}  // namespace nkisim::sim
