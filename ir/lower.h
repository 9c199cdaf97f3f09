// lower.h - the back end: Kernel IR -> isa::Program (engine choice, allocation, semaphores, emission).
#pragma once
#include "ir/kernel.h"
#include "isa/program.h"
#include "isa/target.h"

namespace nkisim::ir {

// Runs verify -> assign_engines -> allocate -> insert_semaphores -> emit. Throws nkisim::Error located at
// the offending op or tensor (e.g. SBUF capacity exceeded, partition rule violated).
isa::Program lower(const Kernel& k, const isa::TargetDesc& target);

}  // namespace nkisim::ir
