// memory.cpp - lazy sentinel initialisation of the simulated memories.
#include "sim/memory.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>

namespace nkisim::sim {

void MemoryUnmap::operator()(uint8_t* p) const {
  if (p) munmap(p - offset, bytes);
}

void MemorySpace::init(uint32_t partitions, uint64_t partition_bytes, uint64_t host_offset) {
  partitions_ = partitions;
  partition_bytes_ = partition_bytes;
  pitch_ = partitions > 1 ? (partition_bytes + 63) / 64 * 64 + kSkewBytes : partition_bytes;
  uint64_t total = uint64_t(partitions) * pitch_;
  // An anonymous mapping: pages come from the OS on first touch (a large SBUF/HBM costs nothing until a
  // chunk is used). Huge pages are asked for per range by advise_huge (ExecContext decides where).
  host_offset %= 4096;
  const size_t bytes = size_t(std::max<uint64_t>(total, 1) + host_offset);
  data_.reset();
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
  data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(mem) + host_offset, MemoryUnmap{bytes, host_offset});
  chunks_per_partition_ = (partition_bytes + kChunkBytes - 1) / kChunkBytes;
  chunk_ready_.assign(size_t(partitions) * chunks_per_partition_, 0);
  column_ready_.assign(chunks_per_partition_, 0);
  column_full_.assign((chunks_per_partition_ + 63) / 64, 0);
  ready_count_ = 0;
}

void MemorySpace::populate(uint32_t partition, uint64_t lo, uint64_t hi) {
#ifdef MADV_POPULATE_WRITE
  if (partition >= partitions_) return;
  const uintptr_t page = 4096;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + lo + page - 1) & ~(page - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + std::min(hi, partition_bytes_)) & ~(page - 1);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // best effort (EINVAL before 5.14)
#else
  (void)partition, (void)lo, (void)hi;
#endif
}

void MemorySpace::release(uint32_t partition, uint64_t lo, uint64_t hi) {
  if (partition >= partitions_) return;
  const uintptr_t page = 4096;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + lo + page - 1) & ~(page - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + std::min(hi, partition_bytes_)) & ~(page - 1);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);  // best effort
}

namespace {
constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
}

// The whole huge pages of the host span from partition p0's byte lo to partition p0+np-1's byte hi.
std::pair<uintptr_t, uintptr_t> MemorySpace::huge_span(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  if (!np || p0 + np > partitions_) return {0, 0};
  const uintptr_t a = (reinterpret_cast<uintptr_t>(ptr(p0, 0)) + lo + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(ptr(p0 + np - 1, 0)) + std::min(hi, partition_bytes_)) & ~(kHugePage - 1);
  return a < b ? std::pair{a, b} : std::pair<uintptr_t, uintptr_t>{0, 0};
}

void MemorySpace::advise_huge(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi, bool huge) {
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  const auto [a, b] = huge_span(p0, np, lo, hi);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);  // best effort
#else
  (void)p0, (void)np, (void)lo, (void)hi, (void)huge;
#endif
}

bool MemorySpace::populate_huge(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi,
                                const std::function<bool(double)>& keep_going) {
#ifdef MADV_POPULATE_WRITE
  const auto [a, b] = huge_span(p0, np, lo, hi);
  for (uintptr_t x = a; x < b; x += kHugePage) {
    const auto t0 = std::chrono::steady_clock::now();
    madvise(reinterpret_cast<void*>(x), kHugePage, MADV_POPULATE_WRITE);
    if (!keep_going(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())) return false;
  }
#else
  (void)p0, (void)np, (void)lo, (void)hi, (void)keep_going;
#endif
  return true;
}

void MemorySpace::mark(uint32_t p, uint64_t c, bool fill) {
  uint8_t& flag = chunk_ready_[size_t(p) * chunks_per_partition_ + c];
  if (flag) return;
  if (fill) {
    uint64_t b0 = c * kChunkBytes, b1 = std::min(b0 + kChunkBytes, partition_bytes_);
    std::memset(ptr(p, b0), kSentinelByte, b1 - b0);
  }
  flag = 1;
  if (++column_ready_[c] == partitions_) column_full_[c / 64] |= uint64_t(1) << (c % 64);
  ++ready_count_;
}

void MemorySpace::prepare_slow(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  uint64_t c0 = lo / kChunkBytes, c1 = std::min((hi + kChunkBytes - 1) / kChunkBytes, chunks_per_partition_);
  for (uint64_t c = c0; c < c1;) {
    const uint64_t full = column_full_[c / 64];
    if (c % 64 == 0 && c + 64 <= c1 && full == ~uint64_t(0)) {  // a large ready range (e.g. an HBM input)
      c += 64;
      continue;
    }
    if (!(full >> (c % 64) & 1))  // else every partition has this chunk already
      for (uint32_t p = p0; p < p0 + np; ++p) mark(p, c, true);
    ++c;
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
