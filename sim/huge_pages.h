#pragma once
#include <cstdint>

namespace nkisim::sim {

// Transparent huge pages (2 MiB) for the simulated memories (ExecContext::prepare_pages, sim/exec_context.cpp):
// Auto where a program touches memory densely, given up when the pages prove cold; Always on every memory.
// Results never depend on the choice.
enum class HugePages : uint8_t { Off, Auto, Always };

}  // namespace nkisim::sim
