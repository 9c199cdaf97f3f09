// scheduler.h - the timing side: a deterministic discrete-event run of the engine streams and DMA queues
// that applies every instruction's data effect at its completion time; and the functional-only runner.
#pragma once
#include <functional>

#include "sim/exec.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// Checks every instruction before anything runs (located Errors): opcode and engine legal for the table,
// the row's operands present / absent / in allowed memories / inside their memory (slots past the row's
// operand count are ignored), semaphore indices in range, DMA queue in range.
void validate_program(const ExecContext& ctx);

// Validates ctx.program (as validate_program) and runs it to completion with the timing model: fills
// r.total_ns, r.total_cycles,
// r.instructions, r.engines, the DMA/MFU/MBU figures and (per opts) r.trace / r.timeline. Data effects go
// to ctx.mem unless opts.timing_only. Throws nkisim::Error on a deadlock.
void run_program(ExecContext& ctx, const Options& opts, Result& r);

// Runs ctx.program for its numerics only: every engine executes its stream in order as far as its
// semaphore waits allow, DMA transfers complete at their trigger. No timing (r.total_ns = 0).
void run_functional(ExecContext& ctx, Result& r, uint64_t max_loop_iterations,
                    const std::function<void(uint64_t, uint64_t)>& progress = {});  // Options::progress

// simulate()'s pieces (sim/simulate.cpp), shared with simulate_lnc (sim/simulate_lnc.cpp).
uint64_t hbm_space_bytes(const isa::Program& p);  // the HBM the program's tensors need
// Checks the inputs against the program's Input tensors and copies them into ctx.mem.hbm (not for a
// timing-only run without inputs).
void bind_inputs(ExecContext& ctx, std::span<const HostArray> inputs, const Options& opts);
void read_results(ExecContext& ctx, Result& r);  // outputs and written inputs from ctx.mem.hbm

}  // namespace nkisim::sim
