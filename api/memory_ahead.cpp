// memory_ahead.cpp - api::prepare_memories_ahead: the target's on-chip memories prepared while a kernel compiles.
#include "api/run.h"
#include "isa/dtype.h"
#include "sim/memory_ahead.h"

namespace nkisim::api {

void prepare_memories_ahead(const isa::TargetDesc& target, std::span<const sim::HostArray> inputs) {
  // Inputs of at least an eighth of the on-chip bytes: a kernel moving that much data through SBUF cycles its
  // tiles through most of it (sim/exec_context.cpp prefaults SBUF / PSUM past an eighth of a partition, case (a)
  // of bench/run.py touches 28 MiB). Below that the pages would be faulted in and freed for nothing.
  constexpr uint64_t kDenseFraction = 8;
  uint64_t input_bytes = 0;
  for (const sim::HostArray& a : inputs) input_bytes += uint64_t(a.elements()) * isa::dtype_size(a.dtype);
  const uint64_t partitions = uint64_t(target.partitions);
  const uint64_t sbuf = uint64_t(target.sbuf_partition_bytes), psum = uint64_t(target.psum_partition_bytes);
  if (input_bytes * kDenseFraction < partitions * (sbuf + psum)) return;
  sim::prepare_memories_ahead(uint32_t(partitions), sbuf, psum);
}

}  // namespace nkisim::api
