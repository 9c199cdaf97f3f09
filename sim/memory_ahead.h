// memory_ahead.h - on-chip memory allocations prepared on a background thread before a run asks for them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace nkisim::sim {

// Starts (at most once per process) a background thread that maps one PSUM-shaped and one SBUF-shaped
// allocation (`partitions` partitions of psum_partition_bytes / sbuf_partition_bytes, laid out as
// MemorySpace::init lays them out), faults their pages in and fills them with kSentinelByte, in steps of a few
// KiB of every partition (bytes [0, x) of each partition, x growing; PSUM first). For a process that compiles
// before it simulates (the CLI): the compile runs on one core while the other prepares the memories.
// The first MemorySpace::init of any space stops the thread (within one partition's step) and waits for it, so
// a run never shares the cores with it; an init of the same shape (host offset 0) then gets the allocation with
// its prepared bytes already valid (take_prepared). What no init takes (a kernel that picks another target)
// is unmapped at exit. Nothing observable changes: a prepared byte holds the sentinel prepare() would give it.
void prepare_memories_ahead(uint32_t partitions, uint64_t sbuf_partition_bytes, uint64_t psum_partition_bytes);

// A prepared allocation: `bytes` host bytes at `mem`; bytes [0, ready_hi) of partitions [0, split) and
// [0, ready_lo) of partitions [split, partitions) are faulted in and hold kSentinelByte. mem == nullptr: none.
struct PreparedMemory {
  void* mem = nullptr;
  size_t bytes = 0;
  uint64_t ready_lo = 0, ready_hi = 0;
  uint32_t split = 0;
  uint64_t ready(uint32_t partition) const { return partition < split ? ready_hi : ready_lo; }
};

// For MemorySpace::init: stops and joins the background thread (if it runs), then hands out the prepared
// allocation of exactly `bytes` host bytes for `partitions` x partition_bytes, if there is one (once).
PreparedMemory take_prepared(uint32_t partitions, uint64_t partition_bytes, size_t bytes);

}  // namespace nkisim::sim
