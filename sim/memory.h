// memory.h - the simulated memories (HBM, SBUF, PSUM) as byte arrays with lazy sentinel initialisation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "isa/access_pattern.h"

namespace nkisim::sim {

// Byte value that fresh (never written) on-chip and internal HBM memory holds. 0xFF bytes read as NaN in
// every float dtype (fp32, bf16, fp16, fp8), so a kernel that reads unwritten memory gets visibly wrong
// output instead of plausible zeros.
inline constexpr uint8_t kSentinelByte = 0xFF;

// Frees a MemorySpace allocation (an anonymous mapping; see MemorySpace::init).
struct MemoryUnmap {
  size_t bytes = 0;
  size_t offset = 0;  // the allocation starts this many bytes into the mapping (MemorySpace::init)
  std::shared_ptr<bool> reusable;  // may be kept for the next allocation (MemorySpace::reuse_freed_memory)
  void operator()(uint8_t* p) const;
};

// One memory space of `partitions` rows of `partition_bytes` each (HBM is one row of hbm_bytes).
// Contract: bytes read or written through ptr() must first be covered by prepare() (or prepare_overwrite()
// when the caller overwrites the whole range), which fills never-touched chunks with kSentinelByte. The
// allocation itself is left uninitialised so a large SBUF/HBM costs nothing until a chunk is used.
class MemorySpace {
 public:
  // host_offset (< 4096, a multiple of 64): byte 0 lies that far into a page, so that a file mapped into
  // the space (ByteSource::map_into) is page-congruent with it. Nothing but the host addresses changes.
  void init(uint32_t partitions, uint64_t partition_bytes, uint64_t host_offset = 0);
  uint32_t partitions() const { return partitions_; }
  uint64_t partition_bytes() const { return partition_bytes_; }
  // Host bytes from one partition to the next (>= partition_bytes): see kSkewBytes.
  uint64_t pitch() const { return pitch_; }
  uint8_t* ptr(uint32_t partition, uint64_t byte) { return data_.get() + partition * pitch_ + byte; }

  // Makes bytes [lo, hi) of partitions [p0, p0+np) valid (sentinel-filling untouched chunks).
  void prepare(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi) {
    if (ready_count_ != chunk_ready_.size() && lo < hi && np) prepare_slow(p0, np, lo, hi);
  }
  // Like prepare(), but chunks entirely inside [lo, hi) are marked valid without filling (the caller
  // writes every byte of the range next).
  void prepare_overwrite(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi);
  // Asks the OS for the pages of bytes [lo, hi) of one partition now, in one call, instead of one page fault
  // per 4 KiB on first touch (for ranges that will certainly be touched, e.g. inputs and outputs in HBM).
  // Changes no byte's value or validity; a no-op where the OS cannot do it (or the partition is out of range),
  // and for a reused allocation (reuse_freed_memory: the walk over its present pages would cost more).
  void populate(uint32_t partition, uint64_t lo, uint64_t hi);
  // Up-front sentinel for a multi-partition space: fill_chunks() fills the chunks of bytes [lo, hi) of one
  // partition that prepare() would fill on first use (the whole chunks inside the range, and the last one of the
  // partition when hi reaches its end) and are not valid yet; it only reads the validity flags, so calls for
  // different partitions may run on different threads. mark_chunks() then makes those chunks of partitions
  // [p0, p0+np) valid (one thread). Every byte reads as before: sentinel until written.
  void fill_chunks(uint32_t partition, uint64_t lo, uint64_t hi);
  void mark_chunks(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi);
  // Asks the OS for transparent huge pages (2 MiB) under bytes [lo, hi) of partitions [p0, p0+np) (the host
  // span from the first partition's lo to the last one's hi, trimmed to whole huge pages): one page fault
  // per 2 MiB instead of one per 4 KiB where a range will be touched densely. Changes no byte's value or
  // validity; a no-op where the OS cannot do it.
  // huge = false takes the advice back (MADV_NOHUGEPAGE) for pages not yet touched.
  void advise_huge(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi, bool huge = true);
  // Populates the whole huge pages of that span one at a time (as populate()), calling keep_going(seconds
  // the page took) after each; stops and returns false when it says no, true when all were populated.
  bool populate_huge(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi, const std::function<bool(double)>& keep_going);
  // Gives the whole pages inside bytes [lo, hi) of one partition back to the OS (they read as zeros, or in a
  // reusable allocation anything, after: only for memory nothing reads again, e.g. HBM around the outputs a
  // Result keeps; see share()).
  void release(uint32_t partition, uint64_t lo, uint64_t hi);
  // Shared ownership of the allocation (Result outputs that alias simulated HBM keep it alive).
  std::shared_ptr<const uint8_t> share() const { return data_; }
  // Process-wide, off by default: a freed allocation is kept (its pages given back to the OS lazily,
  // MADV_FREE; at most 4 of them, 1 GiB in all) and handed to the next init() of the same size, so a process
  // that runs kernel after kernel (the Python package) skips most page faults and the kernel's page zeroing.
  // Nothing else changes: init() makes every byte unwritten again (prepare() fills the sentinel).
  static void reuse_freed_memory(bool on);
  // A file is mapped into the allocation (an input, an output file): it is never reused.
  void holds_files();

 private:
  void prepare_slow(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi);
  void prepare_lines(uint64_t lo, uint64_t hi, bool overwrite);
  uint64_t lines_of_chunk(uint64_t c) const;
  std::pair<uintptr_t, uintptr_t> huge_span(uint32_t p0, uint32_t np, uint64_t lo, uint64_t hi);
  void mark(uint32_t p, uint64_t c, bool fill);
  bool column_has(uint64_t c, uint32_t p0, uint32_t np) const;
  static constexpr uint64_t kChunkBytes = 4096;
  // Partition sizes are multiples of 64 KiB (SBUF 192 KiB, PSUM 16 KiB), so without padding the same
  // offset of every partition maps to the same host cache sets and a [128, F] tile thrashes L1 and L2.
  // Partitions are laid out `pitch_` = partition_bytes rounded up to 64 plus 17 cache lines apart (an odd
  // number of lines: consecutive partitions land on different sets of any power-of-two-set cache).
  static constexpr uint64_t kSkewBytes = 17 * 64;
  uint64_t pitch_ = 0;
  std::shared_ptr<uint8_t> data_;  // deleter: MemoryUnmap
  uint32_t partitions_ = 0;
  uint64_t partition_bytes_ = 0;
  uint64_t chunks_per_partition_ = 0;
  std::vector<uint8_t> chunk_ready_;     // [partition][chunk]
  std::vector<uint32_t> column_ready_;   // [chunk]: partitions whose chunk is ready
  std::vector<uint64_t> column_full_;    // bit per chunk: every partition has it (prepare_slow skips 64 at once)
  // Multi-partition spaces: [chunk][mask_words_] bit per partition whose chunk is ready, so a tile on fewer
  // than all partitions (whose chunks never become full columns) skips its ready chunks in one test.
  std::vector<uint64_t> column_mask_;
  uint32_t mask_words_ = 0;
  // One-partition spaces (HBM): bit per 64-byte line of each chunk not yet ready, set when the line is valid
  // (written, or sentinel-filled). A strided tile writes parts of many chunks: only the lines it leaves
  // unwritten and something reads get the sentinel, not whole chunks that later tiles overwrite anyway.
  static constexpr uint64_t kLineBytes = 64;
  std::vector<uint64_t> line_valid_;
  bool reused_ = false;  // the allocation came from the reuse pool: its pages are mostly there already
  size_t ready_count_ = 0;
};

// One core's view of the memories: its own SBUF and PSUM, and the HBM that all cores of the run share (owned
// by the run, sim/machine.h).
struct Memories {
  MemorySpace& hbm;
  MemorySpace sbuf, psum;
  MemorySpace& of(isa::Memory m) { return m == isa::Memory::HBM ? hbm : m == isa::Memory::SBUF ? sbuf : psum; }
  const MemorySpace& of(isa::Memory m) const {
    return m == isa::Memory::HBM ? hbm : m == isa::Memory::SBUF ? sbuf : psum;
  }
};

}  // namespace nkisim::sim
