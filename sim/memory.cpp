// memory.cpp - lazy sentinel initialisation of the simulated memories.
#include "sim/memory.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <deque>
#include <mutex>
#include <new>

#include <sys/mman.h>

namespace nkisim::sim {
namespace {

// Freed allocations kept for reuse (MemorySpace::reuse_freed_memory): (mapping, bytes), oldest first.
std::atomic<bool> g_reuse{false};
constexpr size_t kPoolEntries = 4, kPoolBytes = size_t(1) << 30, kPoolMinBytes = size_t(1) << 20;
struct Pool {
  std::mutex mu;
  std::deque<std::pair<void*, size_t>> free;
  size_t bytes = 0;
};
Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: outputs may be freed while the process exits
  return *p;
}

void* take_pooled(size_t bytes) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  for (auto it = p.free.begin(); it != p.free.end(); ++it)
    if (it->second == bytes) {
      void* m = it->first;
      p.bytes -= bytes;
      p.free.erase(it);
      return m;
    }
  return nullptr;
}

void give_pooled(void* m, size_t bytes) {
  if (bytes < kPoolMinBytes || bytes > kPoolBytes) {
    munmap(m, bytes);
    return;
  }
  madvise(m, bytes, MADV_FREE);  // the OS may take the pages back under memory pressure (they read as zeros then)
  std::vector<std::pair<void*, size_t>> evict;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    p.free.push_back({m, bytes});
    p.bytes += bytes;
    while (p.free.size() > kPoolEntries || p.bytes > kPoolBytes) {
      evict.push_back(p.free.front());
      p.bytes -= p.free.front().second;
      p.free.pop_front();
    }
  }
  for (auto [e, n] : evict) munmap(e, n);
}

}  // namespace

void MemoryUnmap::operator()(uint8_t* p) const {
  if (!p) return;
  if (reusable && *reusable) give_pooled(p - offset, bytes);
  else munmap(p - offset, bytes);
}

void MemorySpace::reuse_freed_memory(bool on) { g_reuse.store(on); }

void MemorySpace::holds_files() {
  if (MemoryUnmap* d = std::get_deleter<MemoryUnmap>(data_); d && d->reusable) *d->reusable = false;
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
  const bool reuse = g_reuse.load();
  void* mem = reuse ? take_pooled(bytes) : nullptr;
  reused_ = mem != nullptr;
  if (!mem) mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
  data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(mem) + host_offset,
                                   MemoryUnmap{bytes, host_offset, reuse ? std::make_shared<bool>(true) : nullptr});
  chunks_per_partition_ = (partition_bytes + kChunkBytes - 1) / kChunkBytes;
  chunk_ready_.assign(size_t(partitions) * chunks_per_partition_, 0);
  column_ready_.assign(chunks_per_partition_, 0);
  column_full_.assign((chunks_per_partition_ + 63) / 64, 0);
  mask_words_ = partitions > 1 ? (partitions + 63) / 64 : 0;
  column_mask_.assign(size_t(mask_words_) * chunks_per_partition_, 0);
  line_valid_.assign(partitions == 1 ? chunks_per_partition_ : 0, 0);
  ready_count_ = 0;
}

void MemorySpace::populate(uint32_t partition, uint64_t lo, uint64_t hi) {
#ifdef MADV_POPULATE_WRITE
  if (partition >= partitions_ || reused_) return;
  const uintptr_t page = 4096;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + lo + page - 1) & ~(page - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + std::min(hi, partition_bytes_)) & ~(page - 1);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // best effort (EINVAL before 5.14)
#else
  (void)partition, (void)lo, (void)hi;
#endif
}

namespace {
// The chunks [c0, c1) fill_chunks / mark_chunks cover: whole chunks inside [lo, hi), and the partition's
// last (shorter) chunk when hi reaches its end.
std::pair<uint64_t, uint64_t> whole_chunks(uint64_t lo, uint64_t hi, uint64_t partition_bytes, uint64_t chunk) {
  hi = std::min(hi, partition_bytes);
  const uint64_t c0 = (lo + chunk - 1) / chunk, c1 = hi == partition_bytes ? (hi + chunk - 1) / chunk : hi / chunk;
  return {c0, std::max(c0, c1)};
}
}  // namespace

void MemorySpace::fill_chunks(uint32_t partition, uint64_t lo, uint64_t hi) {
  if (partition >= partitions_ || partitions_ == 1) return;
  const auto [c0, c1] = whole_chunks(lo, hi, partition_bytes_, kChunkBytes);
  for (uint64_t c = c0; c < c1; ++c) {
    if (chunk_ready_[size_t(partition) * chunks_per_partition_ + c]) continue;
    const uint64_t b0 = c * kChunkBytes, b1 = std::min(b0 + kChunkBytes, partition_bytes_);
    std::memset(ptr(partition, b0), kSentinelByte, b1 - b0);
  }
}

void MemorySpace::mark_chunks(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  if (partitions_ == 1) return;
  const auto [c0, c1] = whole_chunks(lo, hi, partition_bytes_, kChunkBytes);
  for (uint32_t p = p0; p < p0 + np && p < partitions_; ++p)
    for (uint64_t c = c0; c < c1; ++c) mark(p, c, false);
}

void MemorySpace::release(uint32_t partition, uint64_t lo, uint64_t hi) {
  if (partition >= partitions_) return;
  const uintptr_t page = 4096;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + lo + page - 1) & ~(page - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(ptr(partition, 0)) + std::min(hi, partition_bytes_)) & ~(page - 1);
  // A reusable allocation keeps its pages until the OS needs them (MADV_FREE): the next run may get them back.
  const MemoryUnmap* d = std::get_deleter<MemoryUnmap>(data_);
  const bool lazily = d && d->reusable && *d->reusable;
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, lazily ? MADV_FREE : MADV_DONTNEED);  // best effort
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
  if (mask_words_) column_mask_[c * mask_words_ + p / 64] |= uint64_t(1) << (p % 64);
  if (++column_ready_[c] == partitions_) column_full_[c / 64] |= uint64_t(1) << (c % 64);
  ++ready_count_;
}

// Whether chunk c of every partition in [p0, p0 + np) is ready (a multi-partition space).
bool MemorySpace::column_has(uint64_t c, uint32_t p0, uint32_t np) const {
  const uint64_t* m = column_mask_.data() + c * mask_words_;
  for (uint32_t p = p0, end = p0 + np; p < end;) {
    const uint32_t b = p % 64, n = std::min<uint32_t>(64 - b, end - p);
    const uint64_t want = (n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1) << b;
    if ((m[p / 64] & want) != want) return false;
    p += n;
  }
  return true;
}

// The valid-line mask of a whole chunk c (its last chunk may hold fewer than 64 lines).
uint64_t MemorySpace::lines_of_chunk(uint64_t c) const {
  const uint64_t n = (std::min((c + 1) * kChunkBytes, partition_bytes_) - c * kChunkBytes + kLineBytes - 1) / kLineBytes;
  return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
}

// prepare / prepare_overwrite of a one-partition space, line by line within chunks not yet ready: lines of
// [lo, hi) that are not valid get the sentinel (overwrite: only the partly covered lines at both ends; the
// caller writes the others), then are valid; a chunk whose lines are all valid becomes ready.
void MemorySpace::prepare_lines(uint64_t lo, uint64_t hi, bool overwrite) {
  hi = std::min(hi, partition_bytes_);
  if (lo >= hi) return;
  const uint64_t c0 = lo / kChunkBytes, c1 = (hi + kChunkBytes - 1) / kChunkBytes;
  for (uint64_t c = c0; c < c1;) {
    const uint64_t full = column_full_[c / 64];
    if (c % 64 == 0 && c + 64 <= c1 && full == ~uint64_t(0)) {  // a large ready range (e.g. an HBM input)
      c += 64;
      continue;
    }
    if (chunk_ready_[c]) {
      ++c;
      continue;
    }
    const uint64_t cb = c * kChunkBytes, a = std::max(lo, cb), b = std::min(hi, cb + kChunkBytes);
    const uint64_t l0 = (a - cb) / kLineBytes, l1 = (b - cb + kLineBytes - 1) / kLineBytes;  // lines touched
    const uint64_t touched = (l1 - l0 >= 64 ? ~uint64_t(0) : ((uint64_t(1) << (l1 - l0)) - 1) << l0) & lines_of_chunk(c);
    uint64_t fill = touched & ~line_valid_[c];
    if (overwrite) {  // lines entirely inside [a, b) are written by the caller
      const uint64_t w0 = (a - cb + kLineBytes - 1) / kLineBytes, w1 = (b - cb) / kLineBytes;
      if (w0 < w1) fill &= ~(w1 - w0 >= 64 ? ~uint64_t(0) : ((uint64_t(1) << (w1 - w0)) - 1) << w0);
      // the chunk's last line may end at the partition's end: written whole when b reaches it
      if (b == partition_bytes_ && b > cb && (b - cb) % kLineBytes && a <= cb + (b - cb) / kLineBytes * kLineBytes)
        fill &= ~(uint64_t(1) << ((b - cb) / kLineBytes));
    }
    while (fill) {  // runs of lines to fill
      const int f0 = __builtin_ctzll(fill);
      const uint64_t rest = fill >> f0;
      const int n = rest == ~uint64_t(0) >> f0 ? 64 - f0 : __builtin_ctzll(~rest);
      const uint64_t x0 = cb + uint64_t(f0) * kLineBytes, x1 = std::min(x0 + uint64_t(n) * kLineBytes, partition_bytes_);
      std::memset(ptr(0, x0), kSentinelByte, x1 - x0);
      fill &= n >= 64 ? 0 : ~(((uint64_t(1) << n) - 1) << f0);
    }
    line_valid_[c] |= touched;
    if (line_valid_[c] == lines_of_chunk(c)) mark(0, c, false);
    ++c;
  }
}

void MemorySpace::prepare_slow(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  if (partitions_ == 1) {
    prepare_lines(lo, hi, false);
    return;
  }
  uint64_t c0 = lo / kChunkBytes, c1 = std::min((hi + kChunkBytes - 1) / kChunkBytes, chunks_per_partition_);
  for (uint64_t c = c0; c < c1;) {
    const uint64_t full = column_full_[c / 64];
    if (c % 64 == 0 && c + 64 <= c1 && full == ~uint64_t(0)) {  // a large ready range (e.g. an HBM input)
      c += 64;
      continue;
    }
    if (!(full >> (c % 64) & 1) && !column_has(c, p0, np))  // else these partitions have this chunk already
      for (uint32_t p = p0; p < p0 + np; ++p) mark(p, c, true);
    ++c;
  }
}

void MemorySpace::prepare_overwrite(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
  if (lo >= hi || !np) return;
  if (partitions_ == 1) {
    if (ready_count_ != chunk_ready_.size()) prepare_lines(lo, hi, true);
    return;
  }
  uint64_t c0 = lo / kChunkBytes, c1 = std::min((hi + kChunkBytes - 1) / kChunkBytes, chunks_per_partition_);
  for (uint64_t c = c0; c < c1; ++c) {
    if (column_has(c, p0, np)) continue;  // mark() would find every flag set
    uint64_t b0 = c * kChunkBytes, b1 = std::min(b0 + kChunkBytes, partition_bytes_);
    bool partial = b0 < lo || b1 > hi;  // partly overwritten chunks still need the sentinel elsewhere
    for (uint32_t p = p0; p < p0 + np; ++p) mark(p, c, partial);
  }
}

}  // namespace nkisim::sim
