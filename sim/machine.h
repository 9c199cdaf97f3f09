// machine.h - the machine one run simulates (DESIGN decision 8, machine.md §12, docs/lnc.md): N cores (N = 1 for
// a single-core run), each with its own ExecContext (SBUF, PSUM, engines, registers, PE state) running its own
// program, all sharing one HBM space; and the two ways to run it. Internal to sim/ (sim/simulate.cpp builds it).
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "sim/exec.h"
#include "sim/sendrecv.h"
#include "sim/simulate.h"

namespace nkisim::sim {

struct Machine {
  explicit Machine(const isa::TargetDesc& t) : target(t) {}
  const isa::TargetDesc& target;
  MemorySpace hbm;                                 // shared by every core (declared first: the cores refer to it)
  std::vector<std::unique_ptr<ExecContext>> cores;  // cores[c] runs programs[c]
  Mailbox mailbox;                                 // sendrecv bytes on their way between the cores
  size_t size() const { return cores.size(); }
};

// Checks that the cores can run together (any N; nothing to check for one core): every core reaches the same
// core_barriers and matching sendrecvs, per engine, in the same order (located errors, before anything runs).
void check_cross_core_pairs(const Machine& m);

// Numerics only (sim/functional.cpp): every engine of every core executes its stream in order as far as its
// semaphore waits allow, DMAs complete at their trigger. The cores' programs are validated, the inputs bound.
// Fills results[c]'s mode, instruction and DMA counts. A stream that cannot finish is a located deadlock error
// (naming the core when there are several).
void run_functional(Machine& m, const Options& opts, std::span<Result> results);

// The timing model (sim/machine.cpp): one Scheduler per core, all in one timeline. Fills out.cores[c] (timing,
// stats, trace, timeline) and out.signals; validation errors come first, as validate_program reports them.
void run_timed(Machine& m, const Options& opts, RunResult& out);

}  // namespace nkisim::sim
