// lower.h - the back end: Kernel IR -> isa::Program (engine choice, allocation, semaphores, emission).
#pragma once
#include <string>
#include <vector>

#include "ir/kernel.h"
#include "isa/program.h"
#include "isa/target.h"

namespace nkisim::ir {

// Runs verify -> assign_engines -> allocate -> insert_semaphores -> emit. Throws nkisim::Error located at
// the offending op or tensor (e.g. SBUF capacity exceeded, partition rule violated). An automatically
// allocated tensor that does not fit on chip is spilled to private HBM instead (docs/spill.md); `notes`, if
// given, receives one line per spilled tensor.
// `tiles`, if given, receives the placement of every on-chip tensor (names for --check findings, docs/checks.md).
struct TilePlacement {
  std::string name;
  isa::Memory mem = isa::Memory::SBUF;
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;  // shape[0]: partitions
  int64_t partition = 0;       // first partition
  int64_t address = 0;         // byte offset in each partition
};
isa::Program lower(const Kernel& k, const isa::TargetDesc& target, std::vector<std::string>* notes = nullptr,
                   std::vector<TilePlacement>* tiles = nullptr);

}  // namespace nkisim::ir
