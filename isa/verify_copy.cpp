// verify_copy.cpp - rules of tensor_copy (executor: sim/exec_copy.cpp).
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_tensor_copy(const Check& c) { c.same_shape(0, 1); }

}  // namespace nkisim::isa::rules
