// verify_print.cpp - rules of device_print (executor: sim/exec_print.cpp). Its src may be any SBUF/PSUM tile (the
// table's memories); the text index refers to the program's strings, which the executor checks.
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_device_print(const Check&) {}

}  // namespace nkisim::isa::rules
