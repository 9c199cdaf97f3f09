// test_memory_ahead.cpp - memories prepared on a background thread (sim/memory_ahead.h): the prepared bytes hold
// the sentinel, and a space that takes a prepared allocation reads exactly as a fresh one, as do the spaces of
// another shape (nothing prepared) and the next space of the same shape (a prepared allocation is taken once).
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <sys/mman.h>

#include "sim/memory.h"
#include "sim/memory_ahead.h"

using nkisim::sim::kSentinelByte;
using nkisim::sim::MemorySpace;

namespace {

// Random multi-partition operations on `m` mirrored in a model (-1: never written), as a run's operands do them.
void random_ops(MemorySpace& m, uint32_t parts, uint64_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> model(size_t(parts) * bytes, -1);
  auto want = [&](uint32_t p, uint64_t b) { const int v = model[p * bytes + b]; return v < 0 ? kSentinelByte : uint8_t(v); };
  for (int k = 0; k < 400; ++k) {
    const uint32_t p0 = rng() % parts, np = 1 + rng() % (parts - p0);
    const uint64_t len = rng() % 4 == 0 ? rng() % 20000 + 1 : rng() % 300 + 1;
    const uint64_t lo = rng() % bytes, hi = std::min(bytes, lo + len);
    if (rng() % 2) {
      m.prepare_overwrite(p0, np, lo, hi);
      const uint8_t v = uint8_t(rng() % 200);
      for (uint32_t p = p0; p < p0 + np; ++p) {
        std::memset(m.ptr(p, lo), v, hi - lo);
        for (uint64_t b = lo; b < hi; ++b) model[p * bytes + b] = v;
      }
    } else {
      m.prepare(p0, np, lo, hi);
      bool same = true;
      for (uint32_t p = p0; p < p0 + np; ++p)
        for (uint64_t b = lo; b < hi && same; ++b) same = m.ptr(p, b)[0] == want(p, b);
      REQUIRE(same);
    }
  }
  m.prepare(0, parts, 0, bytes);
  for (uint32_t p = 0; p < parts; ++p) {
    bool same = true;
    for (uint64_t b = 0; b < bytes && same; ++b) same = m.ptr(p, b)[0] == want(p, b);
    CAPTURE(p);
    REQUIRE(same);
  }
}

}  // namespace

TEST_CASE("prepare_memories_ahead: prepared bytes hold the sentinel; spaces read as fresh ones, taken or not") {
  // Partition sizes that are not a multiple of a chunk (4 KiB) or of the thread's 8 KiB step.
  const uint32_t parts = 8;
  const uint64_t sbuf = 50000, psum = 10000;
  nkisim::sim::prepare_memories_ahead(parts, sbuf, psum);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // whatever the thread gets done meanwhile

  const size_t psum_bytes = size_t(parts * MemorySpace::pitch_for(parts, psum));
  const nkisim::sim::PreparedMemory pm = nkisim::sim::take_prepared(parts, psum, psum_bytes);  // stops the thread
  REQUIRE(pm.mem != nullptr);
  CHECK(pm.bytes == psum_bytes);
  CHECK(pm.ready_lo <= pm.ready_hi);
  CHECK(pm.ready_hi <= psum);
  CHECK(pm.split <= parts);
  for (uint32_t p = 0; p < parts; ++p) {
    const uint8_t* row = static_cast<const uint8_t*>(pm.mem) + p * MemorySpace::pitch_for(parts, psum);
    bool sentinel = true;
    for (uint64_t b = 0; b < pm.ready(p) && sentinel; ++b) sentinel = row[b] == kSentinelByte;
    CAPTURE(p);
    CHECK(sentinel);
  }
  CHECK(nkisim::sim::take_prepared(parts, psum, psum_bytes).mem == nullptr);  // taken once
  munmap(pm.mem, pm.bytes);

  MemorySpace other;  // another shape: nothing prepared for it
  other.init(parts, 60000);
  random_ops(other, parts, 60000, 1);
  MemorySpace taken;  // the SBUF shape: the prepared allocation, with whatever the thread filled already valid
  taken.init(parts, sbuf);
  random_ops(taken, parts, sbuf, 2);
  MemorySpace fresh;  // the same shape again: a fresh allocation
  fresh.init(parts, sbuf);
  CHECK(fresh.ptr(0, 0) != taken.ptr(0, 0));
  random_ops(fresh, parts, sbuf, 3);
}
