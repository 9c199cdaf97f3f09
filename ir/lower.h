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
// `path`: how semaphores are inserted. automatic: straight-line kernels take the fast path, kernels with registers
// or dynamic loops the region emitter (ir/loops.cpp); regions: the region emitter for every kernel (the same
// program on loop-free kernels: a test compares the two).
enum class SemaphorePath : uint8_t { automatic, regions };
isa::Program lower(const Kernel& k, const isa::TargetDesc& target, std::vector<std::string>* notes = nullptr,
                   std::vector<TilePlacement>* tiles = nullptr, SemaphorePath path = SemaphorePath::automatic);

}  // namespace nkisim::ir
