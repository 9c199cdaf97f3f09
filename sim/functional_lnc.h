// functional_lnc.h - LNC=2 functional mode (sim/functional_lnc.cpp): the numerics of several cores that share
// HBM, no timing. Internal to sim/ (simulate_lnc calls it).
#pragma once
#include <functional>
#include <span>

#include "sim/exec.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// Runs ctx[c]->program (c = 0 .. n-1, validated, inputs bound) for its numerics; own(c) hands the shared HBM
// to core c before it executes. Fills results[c]'s mode, instruction and DMA counts. A stream that cannot
// finish is a located deadlock error naming the core, the engine and the semaphore.
void run_functional_lnc(std::span<ExecContext* const> ctx, const std::function<void(size_t)>& own,
                        std::span<Result> results, uint64_t max_loop_iterations);

}  // namespace nkisim::sim
