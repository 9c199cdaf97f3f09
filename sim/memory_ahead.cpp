// memory_ahead.cpp - on-chip memory allocations prepared on a background thread (see memory_ahead.h).
#include "sim/memory_ahead.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>

#include "sim/memory.h"

namespace nkisim::sim {
namespace {

std::atomic<bool> g_started{false};  // prepare_memories_ahead ran (take_prepared has nothing to do before)

// Bytes of every partition prepared per step: 8 KiB of 128 partitions = 1 MiB (~0.5 ms on the 2-vCPU VM of
// docs/performance.md). The thread checks for a stop after each partition's piece.
constexpr uint64_t kStepBytes = 8192;

struct Space {
  uint32_t partitions = 0;
  uint64_t partition_bytes = 0, pitch = 0;
  void* mem = nullptr;
  size_t bytes = 0;
  uint64_t ready_lo = 0, ready_hi = 0;  // see PreparedMemory
  uint32_t split = 0;
};

struct Ahead {
  std::mutex mu;  // serialises start, take and exit
  std::thread worker;
  std::atomic<bool> stop{false};
  bool started = false;
  std::vector<Space> spaces;  // the worker writes their progress until it is joined
  void finish() {
    stop.store(true);
    if (worker.joinable()) worker.join();
  }
  ~Ahead() {
    std::lock_guard<std::mutex> lock(mu);
    finish();
    for (const Space& s : spaces) munmap(s.mem, s.bytes);
  }
};
Ahead& ahead() {
  static Ahead a;
  return a;
}

// Faults in and sentinel-fills bytes [lo, hi) of one partition.
void prepare_piece(const Space& s, uint32_t p, uint64_t lo, uint64_t hi) {
  uint8_t* row = static_cast<uint8_t*>(s.mem) + p * s.pitch;
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page = 4096;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(row) + lo + page - 1) & ~(page - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(row) + hi) & ~(page - 1);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // best effort
#endif
  std::memset(row + lo, kSentinelByte, hi - lo);
}

void run_worker(Ahead& st) {
  for (Space& s : st.spaces)
    for (uint64_t lo = 0; lo < s.partition_bytes; lo += kStepBytes) {
      const uint64_t hi = std::min(lo + kStepBytes, s.partition_bytes);
      s.ready_hi = hi;
      for (uint32_t p = 0; p < s.partitions; ++p) {
        if (st.stop.load(std::memory_order_relaxed)) return;
        prepare_piece(s, p, lo, hi);
        s.split = p + 1;
      }
      s.ready_lo = hi;
      s.split = 0;
    }
}

}  // namespace

void prepare_memories_ahead(uint32_t partitions, uint64_t sbuf_partition_bytes, uint64_t psum_partition_bytes) {
  Ahead& st = ahead();
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.started || partitions < 2) return;
  st.started = true;
  g_started.store(true);
  for (uint64_t partition_bytes : {psum_partition_bytes, sbuf_partition_bytes}) {
    Space s;
    s.partitions = partitions;
    s.partition_bytes = partition_bytes;
    s.pitch = MemorySpace::pitch_for(partitions, partition_bytes);
    s.bytes = size_t(std::max<uint64_t>(uint64_t(partitions) * s.pitch, 1));
    s.mem = mmap(nullptr, s.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s.mem == MAP_FAILED) continue;  // nothing prepared: the run allocates as usual
    st.spaces.push_back(s);
  }
  if (st.spaces.empty()) return;
  // The worker takes no signal: the process's handlers (sim/staged_output.h) run on the threads that own them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    st.worker = std::thread([&st] { run_worker(st); });
  } catch (...) {  // no thread: nothing is prepared
    for (const Space& s : st.spaces) munmap(s.mem, s.bytes);
    st.spaces.clear();
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

PreparedMemory take_prepared(uint32_t partitions, uint64_t partition_bytes, size_t bytes) {
  if (!g_started.load()) return {};
  Ahead& st = ahead();
  std::lock_guard<std::mutex> lock(st.mu);
  st.finish();
  for (auto it = st.spaces.begin(); it != st.spaces.end(); ++it)
    if (it->partitions == partitions && it->partition_bytes == partition_bytes && it->bytes == bytes) {
      const PreparedMemory out{it->mem, it->bytes, it->ready_lo, it->ready_hi, it->split};
      st.spaces.erase(it);
      return out;
    }
  return {};
}

}  // namespace nkisim::sim
