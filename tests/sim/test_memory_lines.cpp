// test_memory_lines.cpp - MemorySpace's sentinel bookkeeping against a byte-exact model: random prepare /
// prepare_overwrite ranges (HBM tracks one-partition spaces by 64-byte line, sim/memory.cpp), and the reuse of
// freed allocations (MemorySpace::reuse_freed_memory).
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sim/memory.h"

using nkisim::sim::kSentinelByte;
using nkisim::sim::MemorySpace;

namespace {

// Random operations on `m` (partition 0) mirrored in `model` (-1: never written): an overwrite writes every
// byte of its range; a read range must then show the model's bytes, the sentinel where nothing was written.
void random_ops(MemorySpace& m, uint64_t bytes, uint32_t seed, int ops) {
  std::mt19937 rng(seed);
  std::vector<int> model(bytes, -1);
  for (int k = 0; k < ops; ++k) {
    // Mostly short ranges, some odd-sized and unaligned, some long; a few reach the last byte.
    uint64_t len = rng() % 4 == 0 ? rng() % 20000 + 1 : rng() % 300 + 1;
    uint64_t lo = rng() % 8 == 0 ? bytes - std::min(bytes, len) : rng() % bytes;
    const uint64_t hi = std::min(bytes, lo + len);
    if (rng() % 2) {
      m.prepare_overwrite(0, 1, lo, hi);
      const uint8_t v = uint8_t(rng() % 200);
      std::memset(m.ptr(0, lo), v, hi - lo);
      for (uint64_t b = lo; b < hi; ++b) model[b] = v;
    } else {
      m.prepare(0, 1, lo, hi);
      bool same = true;
      for (uint64_t b = lo; b < hi && same; ++b)
        same = m.ptr(0, b)[0] == (model[b] < 0 ? kSentinelByte : uint8_t(model[b]));
      REQUIRE(same);
    }
  }
  m.prepare(0, 1, 0, bytes);
  for (uint64_t b = 0; b < bytes; ++b) REQUIRE(m.ptr(0, b)[0] == (model[b] < 0 ? kSentinelByte : uint8_t(model[b])));
}

}  // namespace

TEST_CASE("MemorySpace (one partition): every byte read holds what was written, else the sentinel") {
  for (uint64_t bytes : {uint64_t(100), uint64_t(4096), uint64_t(10000), uint64_t(300000) + 37}) {
    MemorySpace m;
    m.init(1, bytes);
    random_ops(m, bytes, uint32_t(bytes), 3000);
  }
}

TEST_CASE("MemorySpace: rows far apart written one by one, the gaps read as the sentinel") {
  MemorySpace m;
  const uint64_t pitch = 1 << 16, row = 256;
  m.init(1, 128 * pitch);
  for (uint64_t p = 0; p < 128; ++p) {  // a [128, 64] fp32 tile of a [128, 16384] tensor
    m.prepare_overwrite(0, 1, p * pitch, p * pitch + row);
    std::memset(m.ptr(0, p * pitch), 7, row);
  }
  m.prepare(0, 1, 0, 128 * pitch);
  CHECK(m.ptr(0, 0)[0] == 7);
  CHECK(m.ptr(0, row - 1)[0] == 7);
  CHECK(m.ptr(0, row)[0] == kSentinelByte);
  CHECK(m.ptr(0, 127 * pitch + row - 1)[0] == 7);
  CHECK(m.ptr(0, 128 * pitch - 1)[0] == kSentinelByte);
}

TEST_CASE("MemorySpace::reuse_freed_memory: a reused allocation starts with every byte unwritten") {
  MemorySpace::reuse_freed_memory(true);
  const uint64_t bytes = uint64_t(3) << 20;
  const uint8_t* first = nullptr;
  {
    MemorySpace m;
    m.init(1, bytes);
    first = m.ptr(0, 0);
    m.prepare_overwrite(0, 1, 0, bytes);
    std::memset(m.ptr(0, 0), 5, bytes);
  }
  MemorySpace m;
  m.init(1, bytes);
  CHECK(m.ptr(0, 0) == first);  // the same mapping, handed back
  random_ops(m, bytes, 11, 500);
  MemorySpace::reuse_freed_memory(false);
}

TEST_CASE("MemorySpace::fill_chunks / mark_chunks: up-front sentinel on several partitions keeps what was written") {
  // 4 partitions of 10,000 bytes (chunks 0-1 whole, chunk 2 the partition's short last one): bytes written
  // before the fill keep their values, the range's whole chunks become valid, a chunk only partly inside it
  // is left to prepare().
  MemorySpace m;
  const uint64_t bytes = 10000;
  m.init(4, bytes);
  m.prepare_overwrite(1, 2, 4096, 8192);  // partitions 1-2, chunk 1: written
  for (uint32_t p = 1; p <= 2; ++p) std::memset(m.ptr(p, 4096), 7, 4096);
  for (uint32_t p = 0; p < 4; ++p) m.fill_chunks(p, 100, bytes);  // chunk 0 only partly inside: not filled
  m.mark_chunks(0, 4, 100, bytes);
  for (uint32_t p = 0; p < 4; ++p) {
    CAPTURE(p);
    for (uint64_t b = 4096; b < bytes; ++b) REQUIRE(m.ptr(p, b)[0] == ((p == 1 || p == 2) && b < 8192 ? 7 : kSentinelByte));
    std::memset(m.ptr(p, 8192), 9, 8);  // a valid chunk: written without prepare, kept by the next prepare
  }
  m.prepare(0, 4, 0, bytes);
  for (uint32_t p = 0; p < 4; ++p) {
    for (uint64_t b = 0; b < 4096; ++b) REQUIRE(m.ptr(p, b)[0] == kSentinelByte);
    for (uint64_t b = 8192; b < 8200; ++b) REQUIRE(m.ptr(p, b)[0] == 9);
  }
}
