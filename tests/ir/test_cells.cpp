// test_cells.cpp - the dependency cells of the semaphore pass (ir/cells.h): per-stream latest readers kept
// inline up to four streams and in a heap array beyond, deep copies, and the state comparison runs merge on;
// CellRuns against one Cell per granule.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "ir/cells.h"

using nkisim::ir::cells::Cell;

TEST_CASE("Cell: the latest reader per stream, in any order, past the inline slots; a write clears them") {
  Cell c;
  const int streams[] = {9, 2, 30, 5, 0, 17, 2, 9};  // 6 distinct streams, two read again later
  int32_t op = 100;
  for (int s : streams) c.read(s, op++);
  CHECK(c.readers == ((1u << 9) | (1u << 2) | (1u << 30) | (1u << 5) | (1u << 0) | (1u << 17)));
  CHECK(c.read_by(9) == 107);
  CHECK(c.read_by(2) == 106);
  CHECK(c.read_by(30) == 102);
  CHECK(c.read_by(5) == 103);
  CHECK(c.read_by(0) == 104);
  CHECK(c.read_by(17) == 105);
  c.write(200);
  CHECK(c.last_write == 200);
  CHECK(c.readers == 0u);
  c.read(3, 201);
  CHECK(c.read_by(3) == 201);

  // Up to four streams stay inline, inserted in stream order whatever the order of the reads.
  Cell d;
  d.read(7, 1);
  d.read(1, 2);
  d.read(4, 3);
  d.read(1, 4);
  d.read(6, 5);
  CHECK(d.read_by(1) == 4);
  CHECK(d.read_by(4) == 3);
  CHECK(d.read_by(6) == 5);
  CHECK(d.read_by(7) == 1);
}

TEST_CASE("Cell: copies are deep and same_state compares writer and per-stream readers") {
  Cell a;
  for (int s = 0; s < 8; ++s) a.read(s, 10 + s);
  Cell b = a;  // heap readers copied
  CHECK(same_state(a, b));
  b.read(3, 99);
  CHECK(a.read_by(3) == 13);
  CHECK(!same_state(a, b));
  Cell c;
  c.read(1, 11);
  c.read(0, 10);
  Cell d;
  d.read(0, 10);
  d.read(1, 11);
  CHECK(same_state(c, d));  // the same state reached by reads in another order
  d.read(1, 12);
  CHECK(!same_state(c, d));
  c = a;
  CHECK(same_state(c, a));
  a.write(5);
  CHECK(c.readers == 0xFFu);
  CHECK(!same_state(c, a));
}

TEST_CASE("CellRuns: one access visits each cell once and leaves every granule as one Cell per granule would") {
  using nkisim::ir::cells::CellRuns;
  constexpr int64_t kGranules = 600;
  CellRuns runs;
  std::vector<Cell> model(kGranules);
  uint64_t seed = 12345;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  for (int32_t op = 0; op < 400; ++op) {
    // An access of a few row ranges, some far apart, some overlapping (as for_each_cell_state visits them).
    std::vector<std::pair<int64_t, int64_t>> rows;
    const int64_t stride = 1 + int64_t(rnd(90)), len = 1 + int64_t(rnd(4)), first = int64_t(rnd(100));
    for (int64_t r = 0, n = 1 + int64_t(rnd(6)); r < n; ++r) {
      const int64_t g0 = std::min<int64_t>(first + r * stride, kGranules - 1);
      rows.emplace_back(g0, std::min(g0 + len, kGranules));
    }
    const bool write = rnd(3) == 0;
    const int stream = int(rnd(7));
    // What an access depends on (RegionAnalysis::add): the producers of every granule it touches.
    std::vector<int32_t> got, want;
    runs.begin_access();
    for (auto [g0, g1] : rows)
      runs.visit(g0, g1, [&](Cell& c) {
        if (c.last_write >= 0) got.push_back(c.last_write);
        for (uint32_t r = c.readers; r; r &= r - 1) got.push_back(c.read_by(std::countr_zero(r)));
      });
    runs.end_access();
    for (auto [g0, g1] : rows)
      for (int64_t g = g0; g < g1; ++g) {
        const Cell& c = model[size_t(g)];
        if (c.last_write >= 0) want.push_back(c.last_write);
        for (uint32_t r = c.readers; r; r &= r - 1) want.push_back(c.read_by(std::countr_zero(r)));
      }
    for (auto* v : {&got, &want}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    CHECK(got == want);
    // The access's effect (RegionAnalysis::record).
    int calls = 0;
    runs.begin_access();
    for (auto [g0, g1] : rows)
      runs.visit(g0, g1, [&](Cell& c) {
        ++calls;
        write ? c.write(op) : c.read(stream, op);
      });
    runs.end_access();
    CHECK(calls <= int(rows.size()) * len);
    for (auto [g0, g1] : rows)
      for (int64_t g = g0; g < g1; ++g) write ? model[size_t(g)].write(op) : model[size_t(g)].read(stream, op);
  }
  for (int64_t g = 0; g < kGranules; ++g) CHECK(same_state(runs.at(g), model[size_t(g)]));
}

TEST_CASE("CellRuns: granules far apart in one state are visited once per access") {
  using nkisim::ir::cells::CellRuns;
  CellRuns runs;
  int calls = 0;
  for (int32_t op = 0; op < 3; ++op) {
    calls = 0;
    runs.begin_access();
    for (int64_t r = 0; r < 128; ++r) runs.visit(r * 1024, r * 1024 + 1, [&](Cell& c) { ++calls, c.read(1, op); });
    runs.end_access();
    CHECK(calls == 1);  // 128 rows, one cell before and one after
  }
  CHECK(runs.at(5 * 1024).read_by(1) == 2);
  CHECK(runs.at(5 * 1024 + 1).readers == 0u);
}

TEST_CASE("hbm_granules: the hull of an HBM pattern's rows, whichever way they walk, floor-divided") {
  using nkisim::ir::cells::hbm_granules;
  nkisim::isa::AccessPattern ap;
  ap.mem = nkisim::isa::Memory::HBM;
  ap.dtype = nkisim::isa::DType::float32;
  ap.num_partitions = 128;
  ap.partition_stride = 131072;  // a [128, 64] tile of a [128, 131072] fp32 tensor, column 64
  ap.offset = 64 * 4;
  ap.num_dims = 1;
  ap.dims[0] = {1, 64};
  // rows at 256 + r * 512 KiB, 256 bytes each: the last row ends at 127 * 524288 + 512
  CHECK(hbm_granules(ap, 512) == std::pair<int64_t, int64_t>{0, 127 * 1024 + 1});
  ap.offset = 127 * 524288;  // the same rows walked backwards
  ap.partition_stride = -131072;
  CHECK(hbm_granules(ap, 512) == std::pair<int64_t, int64_t>{0, 127 * 1024 + 1});
  ap.offset = -4;  // one element below 0 and one at 0
  ap.num_partitions = 1;
  ap.dims[0] = {1, 2};
  CHECK(hbm_granules(ap, 512) == std::pair<int64_t, int64_t>{-1, 1});
}
