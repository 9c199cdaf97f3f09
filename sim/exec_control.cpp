// exec_control.cpp - sequencer control instructions: no data effect (the scheduler handles their waits
// and semaphore updates like any other instruction's).
#include "sim/exec.h"

namespace nkisim::sim {

void exec_sem_wait(ExecContext&, const isa::Instruction&) {}
void exec_sem_update(ExecContext&, const isa::Instruction&) {}

}  // namespace nkisim::sim
