// cells.h - memory cells for the dependency analysis (ir/deps.cpp): SBUF/PSUM as
// 32-partition quadrant x 64 B, HBM as 512 B per row touched. Internal to ir/.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <iterator>
#include <map>
#include <memory>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "isa/access_pattern.h"
#include "isa/dtype.h"
#include "isa/instruction.h"

namespace nkisim::ir::cells {

constexpr int kEngineStreams = isa::kNumEngines;
constexpr int kMaxStreams = 32;  // engines + DMA queues; reader sets are 32-bit masks

// Per memory cell: the last writer and, per stream, the latest reader since that write. The readers are
// kept in stream order, inline for up to kInlineReaders streams (the usual case: 32 bytes a cell) and in a
// heap array beyond that; copies are deep, so two cells never share reader storage.
class Cell {
 public:
  int32_t last_write = -1;
  uint32_t readers = 0;  // bit s: stream s has read since last_write (read_by() is valid)

  Cell() = default;
  Cell(const Cell& o) : last_write(o.last_write), readers(o.readers), inline_(o.inline_) {
    if (o.all_) all_ = std::make_unique<std::array<int32_t, kMaxStreams>>(*o.all_);
  }
  Cell& operator=(const Cell& o) {
    if (this != &o) {
      last_write = o.last_write;
      readers = o.readers;
      inline_ = o.inline_;
      all_ = o.all_ ? std::make_unique<std::array<int32_t, kMaxStreams>>(*o.all_) : nullptr;
    }
    return *this;
  }
  Cell(Cell&&) noexcept = default;
  Cell& operator=(Cell&&) noexcept = default;

  // Cheaply known to be in the same state as `o` (both with their readers inline): same_state() then holds.
  bool same_inline(const Cell& o) const {
    static_assert(kInlineReaders == 4);  // (compared one by one: std::array's == calls memcmp)
    return last_write == o.last_write && readers == o.readers && !all_ && !o.all_ && inline_[0] == o.inline_[0] &&
           inline_[1] == o.inline_[1] && inline_[2] == o.inline_[2] && inline_[3] == o.inline_[3];
  }
  // The latest op of stream s that read the cell (s must be in `readers`).
  int32_t read_by(int s) const { return all_ ? (*all_)[size_t(s)] : inline_[rank(s)]; }
  // A write: no readers since.
  void write(int32_t op) {
    last_write = op;
    readers = 0;
    all_.reset();
  }
  // A read by op `op` of stream s.
  void read(int s, int32_t op) {
    const uint32_t bit = 1u << s;
    if (all_) {
      (*all_)[size_t(s)] = op;
    } else if (readers & bit) {
      inline_[rank(s)] = op;
    } else if (std::popcount(readers) < kInlineReaders) {
      const int r = rank(s), n = std::popcount(readers);
      for (int i = n; i > r; --i) inline_[size_t(i)] = inline_[size_t(i - 1)];
      inline_[size_t(r)] = op;
    } else {  // one stream too many for the inline slots
      all_ = std::make_unique<std::array<int32_t, kMaxStreams>>();
      for (uint32_t m = readers; m; m &= m - 1)
        (*all_)[size_t(std::countr_zero(m))] = inline_[rank(std::countr_zero(m))];
      (*all_)[size_t(s)] = op;
    }
    readers |= bit;
  }

 private:
  static constexpr int kInlineReaders = 4;
  size_t rank(int s) const { return size_t(std::popcount(readers & ((1u << s) - 1))); }
  std::array<int32_t, kInlineReaders> inline_{};
  std::unique_ptr<std::array<int32_t, kMaxStreams>> all_;
};

// Two cells are in the same state: the same last writer and the same reader per stream.
inline bool same_state(const Cell& a, const Cell& b) {
  if (a.last_write != b.last_write || a.readers != b.readers) return false;
  for (uint32_t r = a.readers; r; r &= r - 1) {
    const int s = std::countr_zero(r);
    if (a.read_by(s) != b.read_by(s)) return false;
  }
  return true;
}

// HBM cells as an ordered map of runs of consecutive granules in the same state ([start, end) -> Cell;
// never-accessed granules have no run): CellRuns' representation for very large HBM address ranges.
class RunMap {
 public:
  // Calls f(Cell&) once per run covering granules [g0, g1) (creating fresh cells for untouched granules,
  // splitting runs at g0 and g1), then merges the neighbouring runs that ended up in the same state.
  template <class F>
  void visit(int64_t g0, int64_t g1, F&& f) {
    visit_unmerged(g0, g1, f);
    merge(g0, g1);
  }
  // One granule's cell (a run of its own until a later visit merges it).
  Cell& at(int64_t g) {
    Cell* c = nullptr;
    visit_unmerged(g, g + 1, [&](Cell& x) { c = &x; });
    return *c;
  }

 private:
  struct Run {
    int64_t end;
    Cell cell;
  };
  std::map<int64_t, Run> runs_;
  friend class CellRuns;

  void split(int64_t x) {
    auto it = runs_.upper_bound(x);
    if (it == runs_.begin()) return;
    --it;
    if (it->first < x && x < it->second.end) {
      runs_.emplace_hint(std::next(it), x, Run{it->second.end, it->second.cell});
      it->second.end = x;
    }
  }
  template <class F>
  void visit_unmerged(int64_t g0, int64_t g1, F&& f) {
    if (g0 >= g1) return;
    split(g0);
    split(g1);
    auto it = runs_.lower_bound(g0);
    for (int64_t pos = g0; pos < g1; ++it) {
      if (it == runs_.end() || it->first > pos) {  // a gap: granules nobody accessed yet
        const int64_t e = it == runs_.end() ? g1 : std::min(g1, it->first);
        it = runs_.emplace_hint(it, pos, Run{e, Cell{}});
      }
      f(it->second.cell);
      pos = it->second.end;
    }
  }
  void merge(int64_t g0, int64_t g1) {
    auto it = runs_.lower_bound(g0);
    if (it != runs_.begin()) --it;  // the run just before g0 may merge with the first one inside
    while (it != runs_.end() && it->first <= g1) {
      auto next = std::next(it);
      if (next != runs_.end() && next->first == it->second.end && next->first <= g1 &&
          same_state(it->second.cell, next->second.cell)) {
        it->second.end = next->second.end;
        runs_.erase(next);
      } else {
        it = next;
      }
    }
  }
};

// HBM cells: one Cell per 512-byte granule in effect, stored as a granule -> cell id array over shared,
// reference-counted cells (id 0 = never accessed), so a big DMA costs one pass over 4-byte ids and one
// Cell update per run of granules in the same state, instead of a hash-map Cell per granule. The
// dependencies found are exactly those of one Cell per granule. Granules beyond kMaxFlat (HBM addresses
// past 4 GiB) switch the whole map to RunMap.
class CellRuns {
 public:
  static constexpr int64_t kMaxFlat = int64_t(1) << 23;

  // Calls f(Cell&) once per run of granules in [g0, g1) that share a state; the granules of the run get
  // the state f leaves. Inside an access (begin_access .. end_access), f is called once per cell the access
  // meets: later runs of a cell already visited take the state f left it (f must depend only on the cell's
  // state, and leave its own result unchanged when applied again, as one access's read or write does).
  template <class F>
  void visit(int64_t g0, int64_t g1, F&& f) {
    if (g0 >= g1) return;
    if (runs_ || g1 > kMaxFlat || g0 < 0) {
      to_runs().visit(g0, g1, f);
      return;
    }
    if (size_t(g1) > ids_.size()) ids_.resize(size_t(g1), 0);
    for (int64_t pos = g0; pos < g1;) {
      const uint32_t id = ids_[size_t(pos)];
      int64_t end = pos + 1;
      while (end < g1 && ids_[size_t(end)] == id) ++end;
      const uint32_t n = uint32_t(end - pos);
      if (in_access_ && seen_[id] == epoch_) {  // a cell this access already visited (or made)
        const uint32_t to = seen_to_[id];
        if (to != id) {
          refs_[to] += n;
          if (id != 0) release(id, n);
          std::fill(ids_.begin() + pos, ids_.begin() + end, to);
        }
      } else if (id != 0 && refs_[id] == n) {  // the run is all of this cell: update it in place
        f(cells_[id]);
        remember(id, id);
      } else {
        Cell c = cells_[id];
        f(c);
        if (!same_state(c, cells_[id])) {
          if (id != 0) release(id, n);
          const uint32_t nid = new_cell(c, n);
          std::fill(ids_.begin() + pos, ids_.begin() + end, nid);
          remember(id, nid);
          remember(nid, nid);
        } else {
          remember(id, id);
        }
      }
      pos = end;
    }
  }
  // One access's visits, see visit(). Cells freed meanwhile are reused only after end_access.
  void begin_access() {
    in_access_ = true;
    ++epoch_;
  }
  void end_access() {
    in_access_ = false;
    free_.insert(free_.end(), retired_.begin(), retired_.end());
    retired_.clear();
  }
  // One granule's cell, for the caller to read and update.
  Cell& at(int64_t g) {
    Cell* c = nullptr;
    if (runs_ || g + 1 > kMaxFlat || g < 0) return to_runs().at(g);
    if (size_t(g) >= ids_.size()) ids_.resize(size_t(g) + 1, 0);
    uint32_t& id = ids_[size_t(g)];
    if (id == 0 || refs_[id] > 1) {
      const Cell copy = cells_[id];
      if (id != 0) release(id, 1);
      id = new_cell(copy, 1);
    }
    c = &cells_[id];
    return *c;
  }

 private:
  std::vector<uint32_t> ids_;                  // per granule
  std::vector<Cell> cells_{Cell{}};            // [0]: the state of never-accessed granules
  std::vector<uint32_t> refs_{0};              // granules per cell
  std::vector<uint32_t> free_;                 // cells no granule refers to any more, for reuse
  std::vector<uint32_t> retired_;              // freed inside the current access: reused after it
  std::vector<uint32_t> seen_{0}, seen_to_{0};  // per cell: the access (epoch) that visited it, its new cell
  uint32_t epoch_ = 0;
  bool in_access_ = false;
  std::unique_ptr<RunMap> runs_;

  void remember(uint32_t id, uint32_t to) {
    if (!in_access_) return;
    seen_[id] = epoch_;
    seen_to_[id] = to;
  }

  // Cells whose last granule moved to another cell are reused, so the pool holds about one cell per state
  // in use (a kernel streaming through HBM keeps a few), not one per granule ever touched.
  uint32_t new_cell(const Cell& c, uint32_t n) {
    if (!free_.empty()) {
      const uint32_t id = free_.back();
      free_.pop_back();
      cells_[id] = c;
      refs_[id] = n;
      return id;
    }
    cells_.push_back(c);
    refs_.push_back(n);
    seen_.push_back(0);
    seen_to_.push_back(0);
    return uint32_t(cells_.size() - 1);
  }
  void release(uint32_t id, uint32_t n) {
    refs_[id] -= n;
    if (refs_[id] == 0) (in_access_ ? retired_ : free_).push_back(id);
  }
  RunMap& to_runs() {
    if (!runs_) {
      runs_ = std::make_unique<RunMap>();
      for (size_t g = 0; g < ids_.size();) {
        size_t e = g + 1;
        while (e < ids_.size() && ids_[e] == ids_[g]) ++e;
        if (ids_[g] != 0)
          runs_->runs_.emplace_hint(runs_->runs_.end(), int64_t(g), RunMap::Run{int64_t(e), cells_[ids_[g]]});
        g = e;
      }
      ids_ = {};
      cells_ = {};
      refs_ = {};
      free_ = {};
      retired_ = {};
      seen_ = {};
      seen_to_ = {};
    }
    return *runs_;
  }
};

// Cells of one memory: a flat array for on-chip memories (quadrant x granule), runs for HBM.
class CellMap {
 public:
  // granule: a power of two (bytes)
  CellMap(int64_t granule, int64_t flat_cells)
      : granule_(granule), shift_(std::countr_zero(uint64_t(granule))), flat_(size_t(flat_cells)) {}
  Cell& at(int64_t key) { return flat_.empty() ? runs_.at(key) : flat_[size_t(key)]; }
  int64_t granule() const { return granule_; }
  int granule_shift() const { return shift_; }  // granule == 1 << granule_shift()
  bool flat() const { return !flat_.empty(); }
  CellRuns& runs() { return runs_; }

 private:
  int64_t granule_;
  int shift_;
  std::vector<Cell> flat_;
  CellRuns runs_;
};

// The element offsets of the first and last element of one partition's free pattern, relative to ap.offset.
inline std::pair<int64_t, int64_t> free_extent(const isa::AccessPattern& ap) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < ap.num_dims; ++d) {
    const int64_t span = ap.dims[d].stride * int64_t(ap.dims[d].count - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

// The bytes [b0, b1) one row (partition) of an access pattern touches, relative to the row's first element
// (ap.offset for the first row): the hull of its free pattern.
inline std::pair<int64_t, int64_t> free_bytes(const isa::AccessPattern& ap) {
  const int64_t es = isa::dtype_size(ap.dtype);
  const auto [lo, hi] = free_extent(ap);
  return {lo * es, (hi + 1) * es};
}

// The HBM granules [g0, g1) that hold every byte an access pattern touches (a superset: the hull of its rows),
// with floor division, so negative byte offsets stay inside it.
inline std::pair<int64_t, int64_t> hbm_granules(const isa::AccessPattern& ap, int64_t granule) {
  const auto [f0, f1] = free_bytes(ap);
  const int64_t last = ap.num_partitions ? int64_t(ap.num_partitions) - 1 : 0;
  const int64_t r0 = ap.offset, r1 = ap.offset + last * ap.partition_stride * isa::dtype_size(ap.dtype);
  const int64_t b0 = std::min(r0, r1) + f0, b1 = std::max(r0, r1) + f1;
  auto floor_div = [](int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); };
  return {floor_div(b0, granule), floor_div(b1 - 1, granule) + 1};
}

// Calls f(key) for every granule of on-chip memory (SBUF / PSUM) an access pattern touches: per partition
// quadrant (32 partitions), the `granule`-byte blocks of its byte hull; key = quadrant x granules_per_quadrant +
// block. The dependency analyses (here and ir/list_schedule.cpp) track memory in these.
// The byte hull [b0, b1) of an on-chip access pattern in each of its partitions.
inline std::pair<int64_t, int64_t> onchip_hull(const isa::AccessPattern& ap) {
  const auto [f0, f1] = free_bytes(ap);
  return {std::max<int64_t>(0, ap.offset + f0), ap.offset + f1};
}

template <class F>
void for_each_onchip_granule(const isa::AccessPattern& ap, int64_t granule, int64_t granules_per_quadrant, F&& f) {
  const auto [b0, b1] = onchip_hull(ap);
  const int64_t g0 = b0 / granule, g1 = std::min((b1 + granule - 1) / granule, granules_per_quadrant);
  const int64_t q0 = ap.start_partition / 32, q1 = (int64_t(ap.start_partition) + ap.num_partitions - 1) / 32;
  for (int64_t q = q0; q <= q1 && q < 4; ++q)
    for (int64_t g = g0; g < g1; ++g) f(q * granules_per_quadrant + g);
}

// Calls f(key) for every cell an access pattern touches.
template <class F>
void for_each_cell(const isa::AccessPattern& ap, const CellMap& m, int64_t granules_per_quadrant, F&& f) {
  const int64_t granule = m.granule();
  if (ap.mem == isa::Memory::HBM) {
    const int64_t es = isa::dtype_size(ap.dtype);
    const auto [f0, f1] = free_bytes(ap);
    for (uint32_t r = 0; r < ap.num_partitions; ++r) {
      int64_t base = ap.offset + int64_t(r) * ap.partition_stride * es;
      int64_t b0 = base + f0, b1 = base + f1;
      for (int64_t g = b0 / granule; g * granule < b1; ++g) f(g);
    }
    return;
  }
  for_each_onchip_granule(ap, granule, granules_per_quadrant, f);
}

// Calls f(Cell&) for the cells an access pattern touches: on-chip once per cell (as for_each_cell); HBM once
// per run of granules in the same state (CellRuns), the rows' granule ranges merged where they touch or
// overlap (a cell seen twice by one access gives the same dependencies as once).
template <class F>
void for_each_cell_state(const isa::AccessPattern& ap, CellMap& m, int64_t granules_per_quadrant, F&& f) {
  if (ap.mem != isa::Memory::HBM || m.flat()) {
    for_each_cell(ap, m, granules_per_quadrant, [&](int64_t key) { f(m.at(key)); });
    return;
  }
  const int64_t es = isa::dtype_size(ap.dtype), granule = m.granule();
  const int shift = m.granule_shift();
  const auto [f0, f1] = free_bytes(ap);
  struct Scope {  // f once per cell of the access (CellRuns::visit)
    CellRuns& r;
    explicit Scope(CellRuns& x) : r(x) { r.begin_access(); }
    ~Scope() { r.end_access(); }
  } scope(m.runs());
  int64_t c0 = 0, c1 = 0;  // the current merged granule range
  for (uint32_t r = 0; r < ap.num_partitions; ++r) {
    const int64_t base = ap.offset + int64_t(r) * ap.partition_stride * es;
    const int64_t b0 = base + f0, b1 = base + f1;
    if (b0 < 0) {  // (not produced by the front end) granule by granule, as for_each_cell
      for (int64_t g = b0 / granule; g * granule < b1; ++g) m.runs().visit(g, g + 1, f);
      continue;
    }
    const int64_t g0 = b0 >> shift, g1 = std::max(g0, (b1 + granule - 1) >> shift);  // b0 >= 0: divisions
    if (c0 < c1 && g0 >= c0 && g0 <= c1) {
      c1 = std::max(c1, g1);
      continue;
    }
    if (c0 < c1) m.runs().visit(c0, c1, f);
    c0 = g0;
    c1 = g1;
  }
  if (c0 < c1) m.runs().visit(c0, c1, f);
}

// Calls f(ap) for every access of `ins` that reads (writes = false) or writes (true): its operands, a
// dynamic-offset operand as its whole base tensor (isa::dyn_footprint), and, as reads, the SBUF offsets
// that dynamic operands read at run time (isa::dyn_source). docs/dynamic-offsets.md.
template <class F>
void for_each_access(const isa::Instruction& ins, bool writes, F&& f) {
  const isa::InstrInfo& in = isa::info(ins.op);
  for (int s = 0; s < in.num_operands; ++s) {
    const isa::AccessPattern& ap = ins.operands[size_t(s)];
    if (!ap.present()) continue;
    if (!ap.dyn.present()) {
      if (in.operands[s].written == writes) f(ap);
      continue;
    }
    if (in.operands[s].written == writes) f(isa::dyn_footprint(ap));
    if (!writes && ap.dyn.kind == isa::DynOffset::Sbuf) f(isa::dyn_source(ap));
  }
}

}  // namespace nkisim::ir::cells
