// print.h - a readable text dump of the Kernel IR (`nki-sim --emit ir FILE`).
#pragma once
#include <string>

#include "ir/kernel.h"

namespace nkisim::ir {

std::string print_kernel(const Kernel& k);

}  // namespace nkisim::ir
