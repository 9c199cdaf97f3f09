// verify_control.cpp - rules of sem_wait and sem_update (executors: sim/exec_control.cpp). They carry only
// semaphore waits and updates, whose numbers are the program's (checked against its semaphore count by
// sim/scheduler_prepare.cpp and nki-as's parser): nothing beyond the shared checks of isa/verify.cpp.
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_sem_wait(const Check&) {}
void verify_sem_update(const Check&) {}

}  // namespace nkisim::isa::rules
