// memory.cpp - lazy sentinel initialisation of the simulated memories.
#include "sim/memory.h"

#include <algorithm>
#include <cstring>

namespace nkisim::sim {

void MemorySpace::init(uint32_t partitions, uint64_t partition_bytes) {
  partitions_ = partitions;
  partition_bytes_ = partition_bytes;
  uint64_t total = uint64_t(partitions) * partition_bytes;
  // new[] without () leaves the bytes uninitialised: large blocks come straight from the OS untouched.
  data_.reset(new uint8_t[std::max<uint64_t>(total, 1)]);
  chunks_per_partition_ = (partition_bytes + kChunkBytes - 1) / kChunkBytes;
  chunk_ready_.assign(size_t(partitions) * chunks_per_partition_, 0);
  column_ready_.assign(chunks_per_partition_, 0);
  ready_count_ = 0;
}

void MemorySpace::mark(uint32_t p, uint64_t c, bool fill) {
  uint8_t& flag = chunk_ready_[size_t(p) * chunks_per_partition_ + c];
  if (flag) return;
  if (fill) {
    uint64_t b0 = c * kChunkBytes, b1 = std::min(b0 + kChunkBytes, partition_bytes_);
    std::memset(ptr(p, b0), kSentinelByte, b1 - b0);
  }
  flag = 1;
  ++column_ready_[c];
  ++ready_count_;
}

void MemorySpace::prepare_slow(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  uint64_t c0 = lo / kChunkBytes, c1 = std::min((hi + kChunkBytes - 1) / kChunkBytes, chunks_per_partition_);
  for (uint64_t c = c0; c < c1; ++c) {
    if (column_ready_[c] == partitions_) continue;  // every partition has this chunk already
    for (uint32_t p = p0; p < p0 + np; ++p) mark(p, c, true);
  }
}

void MemorySpace::prepare_overwrite(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  if (lo >= hi || !np) return;
  uint64_t c0 = lo / kChunkBytes, c1 = std::min((hi + kChunkBytes - 1) / kChunkBytes, chunks_per_partition_);
  for (uint64_t c = c0; c < c1; ++c) {
    uint64_t b0 = c * kChunkBytes, b1 = std::min(b0 + kChunkBytes, partition_bytes_);
    bool partial = b0 < lo || b1 > hi;  // partly overwritten chunks still need the sentinel elsewhere
    for (uint32_t p = p0; p < p0 + np; ++p) mark(p, c, partial);
  }
}

}  // namespace nkisim::sim
