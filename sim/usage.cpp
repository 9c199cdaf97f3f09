// usage.cpp - SBUF/PSUM usage counters for the trace, derived from the timing records.
//
// A byte range of on-chip memory is "in use" from the start of the instruction (or DMA transfer) that
// writes it to the end of the last one that reads it before the next write; data never read counts as
// not in use. Usage is tracked per 64-byte granule of the per-partition address space (a tile covering
// several partitions at the same offsets counts once), so the counters read "bytes per partition".
// PSUM is also counted in banks ("psum_banks_in_use": banks holding data not yet read out, i.e. the
// outstanding accumulation groups, machine.md §5).
#include <algorithm>

#include "sim/scheduler_impl.h"

namespace nkisim::sim::detail {
namespace {

struct Access {
  double t;
  bool write;
  isa::Memory mem;
  int64_t lo, hi;
};

// Samples of live bytes (granule `g` bytes each, value `unit` per granule) over time.
void live_counter(const std::vector<Access>& acc, isa::Memory mem, int64_t size, int64_t g, double unit,
                  const char* name, Result& r) {
  if (size <= 0 || g <= 0) return;
  const size_t n = size_t((size + g - 1) / g);
  std::vector<double> start(n, -1), last(n, -1);
  std::vector<std::pair<double, double>> deltas;
  auto close = [&](size_t k) {
    if (start[k] >= 0 && last[k] >= start[k]) {
      deltas.emplace_back(start[k], unit);
      deltas.emplace_back(last[k], -unit);
    }
    start[k] = last[k] = -1;
  };
  for (const Access& a : acc) {
    if (a.mem != mem || a.hi <= a.lo) continue;
    const size_t k0 = size_t(std::max<int64_t>(0, a.lo) / g);
    const size_t k1 = std::min(n, size_t((std::max<int64_t>(0, a.hi) + g - 1) / g));
    for (size_t k = k0; k < k1; ++k) {
      if (a.write) {
        close(k);
        start[k] = a.t;
      } else if (start[k] >= 0) {
        last[k] = std::max(last[k], a.t);
      }
    }
  }
  for (size_t k = 0; k < n; ++k) close(k);
  std::sort(deltas.begin(), deltas.end());
  double value = 0;
  r.counters.push_back(TraceCounter{name, 0, 0});
  for (size_t i = 0; i < deltas.size();) {
    const double t = deltas[i].first;
    for (; i < deltas.size() && deltas[i].first == t; ++i) value += deltas[i].second;
    if (r.counters.back().name == name && r.counters.back().t_ns == t) r.counters.back().value = value;
    else r.counters.push_back(TraceCounter{name, t, value});
  }
}

}  // namespace

void usage_counters(const isa::Program& p, const isa::TargetDesc& t, Result& r) {
  std::vector<Access> acc;
  for (const InstrTiming& rec : r.timeline) {
    const isa::Instruction& ins = p.streams[rec.engine][rec.index];
    const isa::InstrInfo& inf = isa::info(ins.op);
    double t0 = rec.start_ns, t1 = rec.end_ns;
    if (rec.transfer >= 0) {
      t0 = r.transfers[size_t(rec.transfer)].start_ns;
      t1 = r.transfers[size_t(rec.transfer)].done_ns;
    }
    for (int s = 0; s < inf.num_operands; ++s) {
      const isa::AccessPattern& ap = ins.operands[s];
      if (ap.mem != isa::Memory::SBUF && ap.mem != isa::Memory::PSUM) continue;
      const Footprint f = footprint(ap);
      acc.push_back(Access{inf.operands[s].written ? t0 : t1, inf.operands[s].written, ap.mem, f.lo, f.hi});
    }
  }
  // Time order; at equal times reads (ends of readers) before writes (starts of writers).
  std::stable_sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
    if (a.t != b.t) return a.t < b.t;
    return !a.write && b.write;
  });
  live_counter(acc, isa::Memory::SBUF, int64_t(t.sbuf_partition_bytes), 64, 64, "sbuf_bytes_per_partition", r);
  live_counter(acc, isa::Memory::PSUM, int64_t(t.psum_partition_bytes), 64, 64, "psum_bytes_per_partition", r);
  const double banks = std::max(1.0, t.psum_banks);
  live_counter(acc, isa::Memory::PSUM, int64_t(t.psum_partition_bytes), int64_t(t.psum_partition_bytes / banks), 1,
               "psum_banks_in_use", r);
}

}  // namespace nkisim::sim::detail
