// profile_warnings.cpp - the profile's warnings (docs/profile.md "Warnings"), in the spirit of the Neuron
// profiler's insights: HBM data read more than once, DMA transfers of small contiguous rows, DMA fixed latency
// on the critical path, float32 matmuls, PSUM bank conflicts, idle engines. Each has a stable kind, the
// numbers behind it and what to try.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "isa/printf.h"
#include "sim/cost.h"
#include "sim/profile_analysis.h"
#include "sim/view.h"

namespace nkisim::sim {
namespace {

// Thresholds (docs/profile.md).
constexpr double kReloadTimes = 2.0;         // an HBM tensor read at least twice its size
constexpr double kSmallRowBytes = 512;       // contiguous bytes per DMA buffer below this
constexpr double kExposedLatencyShare = 10;  // % of the end time spent in DMA fixed latency on the path
constexpr double kComputeIdleShare = 50;     // % of the end time with no compute engine running
constexpr double kIdlePeerShare = 10;        // % active below which a peer of the bounding engine is idle

using isa::printf_string;

std::string bytes_text(double b) {
  if (b >= 1 << 20) return printf_string("%.1f MiB", b / (1 << 20));
  if (b >= 1 << 10) return printf_string("%.1f KiB", b / (1 << 10));
  return printf_string("%.0f B", b);
}

const isa::Instruction& instr(const isa::Program& p, const Result& r, uint32_t id) {
  return p.streams[r.timeline[id].engine][r.timeline[id].index];
}

// HBM bytes each tensor was read by DMA (every read operand in HBM of every transfer's instruction).
void hbm_reload(const isa::Program& p, const Result& r, ProfileAnalysis& a) {
  std::vector<double> read(p.hbm_tensors.size(), 0.0);
  std::vector<uint64_t> reads(p.hbm_tensors.size(), 0);
  std::vector<std::pair<int64_t, size_t>> by_address;
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i) by_address.push_back({int64_t(p.hbm_tensors[i].address), i});
  std::stable_sort(by_address.begin(), by_address.end());
  for (const TransferTiming& x : r.transfers) {
    const isa::Instruction& ins = instr(p, r, x.instr);
    const isa::InstrInfo& info = isa::info(ins.op);
    for (int k = 0; k < info.num_operands; ++k) {
      const isa::AccessPattern& ap = ins.operands[k];
      if (info.operands[k].written || ap.mem != isa::Memory::HBM) continue;
      const View v = describe(ap);
      // The tensor holding the first byte: the last one starting at or below it (spilled kernels have thousands).
      auto it = std::upper_bound(by_address.begin(), by_address.end(), v.lo,
                                 [](int64_t lo, const std::pair<int64_t, size_t>& e) { return lo < e.first; });
      while (it != by_address.begin()) {
        --it;
        const isa::HbmTensor& h = p.hbm_tensors[it->second];
        if (v.lo < int64_t(h.address + h.bytes)) {
          read[it->second] += double(v.total_elems()) * v.esize;
          ++reads[it->second];
          break;
        }
        if (h.bytes != 0) break;  // empty tensors share addresses with the next one: look past them only
      }
    }
  }
  std::vector<size_t> order;  // the biggest excess first
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return read[x] - double(p.hbm_tensors[x].bytes) > read[y] - double(p.hbm_tensors[y].bytes);
  });
  for (size_t i : order) {
    const isa::HbmTensor& h = p.hbm_tensors[i];
    if (h.bytes == 0 || read[i] <= double(h.bytes)) continue;
    a.hbm_reload_bytes += read[i] - double(h.bytes);
    const double times = read[i] / double(h.bytes);
    if (times < kReloadTimes) continue;
    a.warnings.push_back({"hbm-reload", h.name,
                          printf_string("tensor '%s' (%s) was read %.1f times from HBM (%s in %llu DMA reads, %s more than "
                              "once): keep it in SBUF across the loop that reloads it, or reorder the loops",
                              h.name.c_str(), bytes_text(double(h.bytes)).c_str(), times, bytes_text(read[i]).c_str(),
                              (unsigned long long)reads[i], bytes_text(read[i] - double(h.bytes)).c_str()),
                          reads[i], times});
  }
}

// Transfers whose contiguous buffers are under kSmallRowBytes, by source line.
void small_rows(const isa::Program& p, const Result& r, const isa::TargetDesc& t, ProfileAnalysis& a) {
  struct Acc {
    uint64_t n = 0;
    double smallest = 1e300, buffers = 0;
  };
  std::map<std::string, Acc> by_line;
  for (const TransferTiming& x : r.transfers) {
    const isa::Instruction& ins = instr(p, r, x.instr);
    if (!isa::has_trait(ins.op, isa::Trait::DMA)) continue;
    const DmaLayout l = dma_layout(ins, t);
    if (l.rows == 0 || l.per_row == 0) continue;
    const double run = l.row_bytes / double(l.per_row);
    if (run >= kSmallRowBytes) continue;
    Acc& acc = by_line[source_line(p, ins)];
    ++acc.n;
    acc.smallest = std::min(acc.smallest, run);
    acc.buffers += double(l.per_row) * l.rows;
  }
  for (auto& [line, acc] : by_line)
    a.warnings.push_back({"small-dma-rows", line,
                          printf_string("%s: %llu DMA transfers move contiguous rows of %.0f B (< %.0f B) in %.0f buffers, each "
                              "costing %.0f ns of DMA engine time besides its bytes, at least %.0f ns: make the innermost dimension "
                              "of the HBM side contiguous and longer (transpose on chip, or load whole rows)",
                              line.c_str(), (unsigned long long)acc.n, acc.smallest, kSmallRowBytes, acc.buffers,
                              t.dma_buffer_overhead_ns, t.dma_buffer_min_ns),
                          acc.n, acc.smallest});
}

void exposed_latency(const isa::TargetDesc& t, ProfileAnalysis& a) {
  if (a.share(a.path_dma_latency_ns) < kExposedLatencyShare) return;
  a.warnings.push_back(
      {"exposed-dma-latency", "",
       printf_string("DMA fixed latency is %.3f us (%.1f%%) of the end time: %llu transfers on the critical path waited "
           "dma_fixed_ns = %.0f ns (plus descriptor generation) before moving data; issue loads earlier (more "
           "buffers in the pool, prefetch the next tile) so the latency overlaps compute",
           a.path_dma_latency_ns / 1000.0, a.share(a.path_dma_latency_ns), (unsigned long long)a.path_transfers_latency,
           t.dma_fixed_ns),
       a.path_transfers_latency, a.path_dma_latency_ns});
}

// Tensor Engine instructions whose float32 operand costs pe_fp32_factor (isa/cost_tensor.cpp), by line.
void fp32_matmul(const isa::Program& p, const Result& r, const isa::TargetDesc& t, ProfileAnalysis& a) {
  if (t.pe_fp32_factor <= 1) return;
  std::map<std::string, std::pair<uint64_t, double>> by_line;
  for (uint32_t id = 0; id < r.timeline.size(); ++id) {
    if (!r.timeline[id].issued) continue;
    const isa::Instruction& ins = instr(p, r, id);
    const bool f32 = (isa::has_trait(ins.op, isa::Trait::PE_MOVE) && !ins.params.transpose &&
                      ins.operands[1].dtype == isa::DType::float32) ||
                     (isa::has_trait(ins.op, isa::Trait::PE_LOAD) && ins.operands[0].dtype == isa::DType::float32);
    if (!f32) continue;
    auto& acc = by_line[source_line(p, ins)];
    ++acc.first;
    acc.second += r.timeline[id].end_ns - r.timeline[id].start_ns;
  }
  for (auto& [line, acc] : by_line)
    a.warnings.push_back({"fp32-matmul", line,
                          printf_string("%s: %llu Tensor Engine instructions take float32 operands, at 1/%g of the bfloat16 "
                              "rate (pe_fp32_factor): %.3f us of Tensor time; cast the operands to bfloat16 (PSUM "
                              "still accumulates in float32) if the precision allows",
                              line.c_str(), (unsigned long long)acc.first, t.pe_fp32_factor, acc.second / 1000.0),
                          acc.first, acc.second});
}

void psum_conflicts(const isa::Program& p, const Result& r, ProfileAnalysis& a) {
  std::map<std::string, std::pair<uint64_t, double>> by_line;
  for (uint32_t id = 0; id < r.timeline.size(); ++id) {
    const InstrTiming& t = r.timeline[id];
    if (t.cause != StallCause::psum_bank || t.start_ns <= t.ready_ns || t.pred.kind != TimingRef::Instr) continue;
    // The part of the stall while the other engine held the bank (the rest waited for something else too).
    const InstrTiming& other = r.timeline[t.pred.id];
    const double held = std::min(t.start_ns, other.end_ns) - std::max(t.ready_ns, other.start_ns);
    auto& acc = by_line[source_line(p, instr(p, r, id))];
    ++acc.first;
    acc.second += std::max(0.0, held);
  }
  for (auto& [line, acc] : by_line)
    a.warnings.push_back({"psum-bank-conflict", line,
                          printf_string("%s: %llu accesses waited %.3f us while the other engine accessed the same PSUM bank "
                              "(Vector and Scalar serialise per bank): give the two engines' tiles different banks "
                              "(separate PSUM tiles, more buffers)",
                              line.c_str(), (unsigned long long)acc.first, acc.second / 1000.0),
                          acc.first, acc.second});
}

void idle_engines(ProfileAnalysis& a) {
  if (a.share(a.compute_idle_ns) >= kComputeIdleShare)
    a.warnings.push_back({"idle-engines", "",
                          printf_string("no compute engine ran for %.3f us (%.1f%% of the end time): the engines wait for "
                              "data or for each other; see the stalls by cause below",
                              a.compute_idle_ns / 1000.0, a.share(a.compute_idle_ns)),
                          0, a.compute_idle_ns});
  if (a.verdict != "engine-bound") return;
  const isa::Engine peers[] = {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd};
  const auto bound = std::find_if(std::begin(peers), std::end(peers),
                                  [&](isa::Engine e) { return isa::engine_name(e) == a.bound_engine; });
  if (bound == std::end(peers)) return;  // only elementwise work can move between these engines
  for (isa::Engine e : peers) {
    const double active = a.share(a.engine_busy_ns[int(e)]);
    if (e == *bound || active >= kIdlePeerShare) continue;
    a.warnings.push_back({"idle-engines", std::string(isa::engine_name(e)),
                          printf_string("%s is active %.1f%% of the run while %s bounds it: move independent elementwise "
                              "work to %s (engine= on nki.isa instructions)",
                              std::string(isa::engine_name(e)).c_str(), active, a.bound_engine.c_str(),
                              std::string(isa::engine_name(e)).c_str()),
                          a.engine_instructions[int(e)], active});
  }
}

}  // namespace

void add_profile_warnings(const isa::Program& p, const Result& r, const isa::TargetDesc& t, ProfileAnalysis& a) {
  hbm_reload(p, r, a);
  small_rows(p, r, t, a);
  exposed_latency(t, a);
  fp32_matmul(p, r, t, a);
  psum_conflicts(p, r, a);
  idle_engines(a);
}

}  // namespace nkisim::sim
