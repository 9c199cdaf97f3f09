// test_deps.cpp - RegionAnalysis (ir/deps.h) on HBM: reads are applied to their cells only when a later write
// meets them (deferred), and the waits come out as if every read had been recorded at once. On chip: the kernel's
// granule (MemoryGranules) keeps unaligned but disjoint accesses apart, and so does the HBM one.
#include <doctest/doctest.h>

#include <vector>

#include "ir/deps.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Engine;

namespace {

// A [128, cols] fp32 tile at column `col` of a [128, 131072] HBM tensor at byte address `base` (rows 512 KiB apart).
isa::AccessPattern tile(int64_t base, int64_t col, int64_t cols = 64) {
  isa::AccessPattern ap;
  ap.mem = isa::Memory::HBM;
  ap.dtype = isa::DType::float32;
  ap.num_partitions = 128;
  ap.partition_stride = 131072;
  ap.offset = base + col * 4;
  ap.num_dims = 1;
  ap.dims[0] = {1, uint32_t(cols)};
  return ap;
}

struct Unit {
  Engine engine;
  isa::AccessPattern ap;
  bool write;
};

// Analyses the units as straight-line code (each on its engine's stream); per unit its waits {stream, value}.
std::vector<std::vector<std::pair<int, int64_t>>> waits_of(const std::vector<Unit>& units) {
  const isa::TargetDesc t = *isa::find_target("trn2");
  deps::DmaQueues queues(t);
  deps::MemoryGranules granules;
  for (const Unit& u : units) granules.add(u.ap);
  deps::RegionAnalysis ra(t, queues, false, granules.value());
  ra.begin_pass();
  for (const Unit& u : units) {
    deps::UnitDesc d;
    d.trigger = d.stream = uint8_t(u.engine);
    const deps::Access acc[] = {{&u.ap, u.write}};
    ra.add(d, acc);
  }
  ra.finish();
  std::vector<std::vector<std::pair<int, int64_t>>> out;
  for (size_t i = 0; i < units.size(); ++i) {
    out.emplace_back();
    for (const deps::Wait& w : ra.waits(i)) out.back().push_back({w.stream, w.value});
  }
  return out;
}

// `bytes` bytes per partition of 128 SBUF partitions from byte `offset` (bf16 elements).
isa::AccessPattern sbuf(int64_t offset, int64_t bytes) {
  isa::AccessPattern ap;
  ap.mem = isa::Memory::SBUF;
  ap.dtype = isa::DType::bfloat16;
  ap.num_partitions = 128;
  ap.offset = offset;
  ap.num_dims = 1;
  ap.dims[0] = {1, uint32_t(bytes / 2)};
  return ap;
}

deps::Granules granules_of(std::initializer_list<isa::AccessPattern> aps) {
  deps::MemoryGranules g;
  for (const isa::AccessPattern& ap : aps) g.add(ap);
  return g.value();
}

using W = std::vector<std::pair<int, int64_t>>;
constexpr int64_t A = 0, B = int64_t(64) << 20, C = int64_t(128) << 20;  // three 64 MiB tensors
const int V = int(Engine::Vector), S = int(Engine::Scalar), Y = int(Engine::Sync);

}  // namespace

TEST_CASE("RegionAnalysis: a write waits for the HBM reads before it, a read of data never written for nothing") {
  const auto w = waits_of({
      {Engine::Vector, tile(A, 0), false},   // 0
      {Engine::Scalar, tile(A, 0), false},   // 1
      {Engine::GpSimd, tile(B, 0), false},   // 2: B is never written
      {Engine::Sync, tile(A, 32), true},     // 3: overlaps 0 and 1 (write after read)
      {Engine::Sync, tile(C, 0), true},      // 4: meets no read
      {Engine::Vector, tile(A, 64), false},  // 5: reads what 3 wrote (bytes 256-383 of each row)
  });
  CHECK(w[0] == W{});
  CHECK(w[2] == W{});
  CHECK(w[3] == W{{V, 1}, {S, 1}});
  CHECK(w[4] == W{});
  CHECK(w[5] == W{{Y, 1}});
}

TEST_CASE("RegionAnalysis: a write waits for the latest HBM read per stream, with writes elsewhere in between") {
  const auto w = waits_of({
      {Engine::Vector, tile(A, 0), false},  // 0
      {Engine::Sync, tile(C, 0), true},     // 1: elsewhere; the reads before it stay deferred
      {Engine::Vector, tile(A, 0), false},  // 2: the latest read of A on Vector
      {Engine::Vector, tile(B, 0), false},  // 3: not A
      {Engine::Scalar, tile(A, 0), true},   // 4: waits for Vector's read 2 only (read 0 signals nothing)
      {Engine::Sync, tile(A, 0), true},     // 5: after 4 (write after write), not after the reads again
  });
  CHECK(w[1] == W{});
  CHECK(w[4] == W{{V, 1}});
  CHECK(w[5] == W{{S, 1}});
}

TEST_CASE("ChipGranule: the coarsest power of two from 1 to 64 bytes that separates each hull's end from the next start") {
  auto of = [](std::initializer_list<isa::AccessPattern> aps) { return granules_of(aps).chip; };
  CHECK(of({}) == 64);
  CHECK(of({sbuf(0, 1024), sbuf(1032, 1024)}) == 64);  // a gap across a 64-byte boundary
  CHECK(of({sbuf(0, 1032), sbuf(1032, 1024)}) == 8);   // adjacent at 1032 = 8 x 129
  CHECK(of({sbuf(0, 1000), sbuf(1016, 8)}) == 16);     // the gap [1000, 1016] holds 1008 = 16 x 63
  CHECK(of({sbuf(0, 1026), sbuf(1026, 2)}) == 2);      // adjacent at 1026 = 2 x 513 (bf16 tiles at 2-byte offsets)
  isa::AccessPattern fp8a = sbuf(0, 1028), fp8b = sbuf(0, 2);  // fp8: bytes [0, 1027) and [1027, 1029)
  fp8a.dtype = fp8b.dtype = isa::DType::float8_e4m3;
  fp8a.dims[0].count = 1027;
  fp8b.offset = 1027;
  CHECK(of({fp8a, fp8b}) == 1);                        // adjacent at an odd byte
  CHECK(of({sbuf(0, 1024), sbuf(4, 8)}) == 64);        // overlapping hulls need no granule of their own
  CHECK(of({sbuf(0, 1032), tile(A, 258)}) == 64);      // HBM (ends at byte 1032) does not count
}

TEST_CASE("MemoryGranules: HBM rows in the largest power of two up to 512 bytes that divides every hull and row step") {
  auto of = [](std::initializer_list<isa::AccessPattern> aps) { return granules_of(aps).hbm; };
  CHECK(of({}) == 512);
  CHECK(of({tile(A, 0, 128), tile(A, 128, 128)}) == 512);  // 512-byte runs at multiples of 512, rows 512 KiB apart
  CHECK(of({tile(A, 0), tile(A, 64)}) == 256);              // 256-byte column blocks
  CHECK(of({tile(A, 0), tile(A, 65)}) == 4);                // one starts at byte 260
  CHECK(of({sbuf(4, 8)}) == 512);                           // on chip does not count
}

TEST_CASE("RegionAnalysis: column blocks of one HBM tensor: a load waits for the store of the block it reads only") {
  // [128, 64] fp32 blocks, 256 bytes of each row: blocks 0 and 1 share a 512-byte granule, not bytes.
  const auto w = waits_of({
      {Engine::Sync, tile(A, 0), true},      // 0: store block 0
      {Engine::Scalar, tile(A, 64), false},  // 1: load block 1: no wait
      {Engine::Vector, tile(A, 0), false},   // 2: load block 0: after 0
  });
  CHECK(w[1] == W{});
  CHECK(w[2] == W{{Y, 1}});
}

TEST_CASE("RegionAnalysis: adjacent tiles at an unaligned address do not wait for each other; overlapping ones do") {
  // Two loads into adjacent 1 KiB tiles from byte 0x14508 (64-byte granules would put both ends in one granule),
  // then a read of the first and one of the last 8 bytes of the first plus the first 8 of the second.
  const auto w = waits_of({
      {Engine::Sync, sbuf(0x14508, 1024), true},          // 0
      {Engine::Scalar, sbuf(0x14508 + 1024, 1024), true},  // 1: next to 0, no overlap
      {Engine::Vector, sbuf(0x14508, 1024), false},         // 2: reads 0's bytes only
      {Engine::GpSimd, sbuf(0x14508 + 1016, 16), false},    // 3: both
  });
  CHECK(w[1] == W{});
  CHECK(w[2] == W{{Y, 1}});
  CHECK(w[3] == W{{S, 1}, {Y, 1}});
}
