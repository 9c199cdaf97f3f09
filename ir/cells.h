// cells.h - memory cells for dependency analysis (ir/semaphores.cpp, ir/loops.cpp): SBUF/PSUM as
// 32-partition quadrant x 64 B, HBM as 512 B per row touched. Internal to ir/.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "isa/access_pattern.h"
#include "isa/dtype.h"
#include "isa/instruction.h"

namespace nkisim::ir::cells {

constexpr int kEngineStreams = isa::kNumEngines;
constexpr int kMaxStreams = 32;  // engines + DMA queues; reader sets are 32-bit masks

struct Cell {
  int32_t last_write = -1;
  uint32_t readers = 0;                   // streams with a read since last_write
  std::array<int32_t, kMaxStreams> read;  // per stream: its latest reading op (valid where readers has the bit)
};

// Cells of one memory: a flat array for on-chip memories (quadrant x granule), a hash map for HBM.
class CellMap {
 public:
  CellMap(int64_t granule, int64_t flat_cells) : granule_(granule), flat_(size_t(flat_cells)) {}
  Cell& at(int64_t key) { return flat_.empty() ? sparse_[key] : flat_[size_t(key)]; }
  int64_t granule() const { return granule_; }
  bool flat() const { return !flat_.empty(); }

 private:
  int64_t granule_;
  std::vector<Cell> flat_;
  std::unordered_map<int64_t, Cell> sparse_;
};

// Calls f(key) for every cell an access pattern touches.
template <class F>
void for_each_cell(const isa::AccessPattern& ap, const CellMap& m, int64_t granules_per_quadrant, F&& f) {
  const int64_t es = isa::dtype_size(ap.dtype), granule = m.granule();
  int64_t lo = 0, hi = 0;  // element extent of the free pattern relative to offset
  for (int d = 0; d < ap.num_dims; ++d) {
    int64_t span = ap.dims[d].stride * int64_t(ap.dims[d].count - 1);
    if (span < 0) lo += span;
    else hi += span;
  }
  if (ap.mem == isa::Memory::HBM) {
    for (uint32_t r = 0; r < ap.num_partitions; ++r) {
      int64_t base = ap.offset + int64_t(r) * ap.partition_stride * es;
      int64_t b0 = base + lo * es, b1 = base + (hi + 1) * es;
      for (int64_t g = b0 / granule; g * granule < b1; ++g) f(g);
    }
    return;
  }
  const int64_t b0 = std::max<int64_t>(0, ap.offset + lo * es), b1 = ap.offset + (hi + 1) * es;
  const int64_t g0 = b0 / granule, g1 = std::min((b1 + granule - 1) / granule, granules_per_quadrant);
  const int64_t q0 = ap.start_partition / 32, q1 = (int64_t(ap.start_partition) + ap.num_partitions - 1) / 32;
  for (int64_t q = q0; q <= q1 && q < 4; ++q)
    for (int64_t g = g0; g < g1; ++g) f(q * granules_per_quadrant + g);
}

}  // namespace nkisim::ir::cells
