// summary.h - the short human-readable run summary the CLI prints on stdout.
#pragma once
#include <string>
#include <vector>

#include "isa/program.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// Kernel and target, total time and cycles, per-engine busy time and %, and the files written.
std::string format_summary(const isa::Program& p, const Result& r, const std::vector<std::string>& files);

}  // namespace nkisim::sim
