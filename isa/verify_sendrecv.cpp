// verify_sendrecv.cpp - rules of sendrecv (executor: sim/exec_sendrecv.cpp): generation availability is shared
// (isa/verify.cpp); its semaphore is the program's (check_sequencer) and whether the peer's src fits dst is known
// when the peer's matching sendrecv arrives.
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_sendrecv(const Check&) {}

}  // namespace nkisim::isa::rules
