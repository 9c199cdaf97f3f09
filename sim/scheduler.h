// scheduler.h - the timing side: a deterministic discrete-event run of the engine streams and DMA queues
// that applies every instruction's data effect at its completion time.
#pragma once
#include "sim/exec.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// Checks every instruction before anything runs (located Errors): opcode and engine legal for the table,
// operands present / absent / in allowed memories / inside their memory, semaphore indices in range,
// DMA queue in range.
void validate_program(const ExecContext& ctx);

// Runs ctx.program to completion: fills r.total_ns, r.total_cycles, r.instructions, r.engines and (when
// `trace`) r.trace. Data effects go to ctx.mem. Throws nkisim::Error on a deadlock.
void run_program(ExecContext& ctx, bool trace, Result& r);

}  // namespace nkisim::sim
