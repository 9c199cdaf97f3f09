// profile.cpp - the --profile text report from a timed Result with a timeline: engine busy %, time per
// kernel source line and per opcode, the critical path through the dependency graph, the biggest stalls.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "isa/printf.h"
#include "sim/cost.h"
#include "sim/explain.h"
#include "sim/profile_analysis.h"
#include "sim/simulate.h"

namespace nkisim::sim {
namespace {

using isa::printf_string;

struct View {
  const isa::Program& p;
  const Result& r;
  const isa::Instruction& ins(uint32_t id) const {
    const InstrTiming& t = r.timeline[id];
    return p.streams[t.engine][t.index];
  }
  std::string loc(const isa::Instruction& i) const { return source_line(p, i); }
  std::string engine(uint32_t id) const { return std::string(isa::engine_name(isa::Engine(r.timeline[id].engine))); }
  std::string describe(TimingRef ref) const {
    if (ref.kind == TimingRef::Instr)
      return engine(ref.id) + " " + isa::info(ins(ref.id).op).mnemonic + " (" + loc(ins(ref.id)) + ")";
    if (ref.kind == TimingRef::Transfer) {
      const TransferTiming& t = r.transfers[ref.id];
      return "DMA transfer on queue " + std::to_string(t.queue) + " (" + loc(ins(t.instr)) + ")";
    }
    return "-";
  }
  double start(TimingRef ref) const {
    return ref.kind == TimingRef::Instr ? r.timeline[ref.id].start_ns : r.transfers[ref.id].enqueue_ns;
  }
  double end(TimingRef ref) const {
    return ref.kind == TimingRef::Instr ? r.timeline[ref.id].end_ns : r.transfers[ref.id].done_ns;
  }
  TimingRef pred(TimingRef ref) const {
    return ref.kind == TimingRef::Instr ? r.timeline[ref.id].pred : r.transfers[ref.id].pred;
  }
  std::string track(TimingRef ref) const {
    return ref.kind == TimingRef::Instr ? engine(ref.id) : "dma.q" + std::to_string(r.transfers[ref.id].queue);
  }
  std::string where(TimingRef ref) const {
    return loc(ref.kind == TimingRef::Instr ? ins(ref.id) : ins(r.transfers[ref.id].instr));
  }
};

void critical_path(const View& v, std::string& s) {
  const std::vector<TimingRef> path = critical_path(v.r);
  const double t_end = path.empty() ? 0.0 : v.end(path.back());
  // Merge consecutive steps on the same track and source line.
  // Each step is charged the time by which it moved the path's end: end(step) - end(previous step).
  struct Seg {
    std::string track, where, what;
    double t0, t1, charged;
    size_t n;
  };
  std::vector<Seg> segs;
  double prev_end = 0;
  for (TimingRef n : path) {
    const std::string tr = v.track(n), wh = v.where(n);
    const std::string what = n.kind == TimingRef::Instr ? isa::info(v.ins(n.id).op).mnemonic : "transfer";
    const double charged = std::max(0.0, v.end(n) - prev_end);
    prev_end = std::max(prev_end, v.end(n));
    if (!segs.empty() && segs.back().track == tr && segs.back().where == wh && segs.back().what == what) {
      segs.back().t1 = v.end(n);
      segs.back().charged += charged;
      ++segs.back().n;
    } else {
      segs.push_back(Seg{tr, wh, what, v.start(n), v.end(n), charged, 1});
    }
  }
  s += printf_string("\nCritical path (%zu steps, ends at %.3f us; 'on path' = how far each step moved the end):\n", path.size(),
           t_end / 1000.0);
  s += "  start(us)    end(us)  on path(us)  track        what                    count  source\n";
  auto row = [&](const Seg& g) {
    s += printf_string("  %9.3f  %9.3f  %11.3f  %-11s  %-22s %6zu  %s\n", g.t0 / 1000.0, g.t1 / 1000.0, g.charged / 1000.0,
             g.track.c_str(), g.what.c_str(), g.n, g.where.c_str());
  };
  const size_t kShow = 20;
  for (size_t i = 0; i < segs.size(); ++i) {
    if (segs.size() > 2 * kShow && i == kShow) s += printf_string("  ... %zu more segments ...\n", segs.size() - 2 * kShow);
    if (segs.size() > 2 * kShow && i >= kShow && i < segs.size() - kShow) continue;
    row(segs[i]);
  }
  std::map<std::string, double> per_track;
  for (const Seg& g : segs) per_track[g.track.rfind("dma.", 0) == 0 ? "dma" : g.track] += g.charged;
  s += "  time on the path by track:";
  for (auto& [k, ns] : per_track) s += printf_string(" %s %.3f us;", k.c_str(), ns / 1000.0);
  s += "\n";
}

}  // namespace

std::string format_verdict(const ProfileAnalysis& a) {
  std::string head;
  double lead = 0;
  if (a.verdict == "engine-bound") {
    for (int e = 0; e < isa::kNumEngines; ++e)
      if (isa::engine_name(isa::Engine(e)) == a.bound_engine) lead = a.path_engine_ns[e];
    head = printf_string("engine-bound (%s): %s's own time is %.1f%% of the end time", a.bound_engine.c_str(),
               a.bound_engine.c_str(), a.share(lead));
  } else if (a.verdict == "dma-bandwidth-bound") {
    head = printf_string("DMA-bandwidth-bound: moving DMA data is %.1f%% of the end time", a.share(a.path_dma_data_ns));
  } else if (a.verdict == "dma-latency-bound") {
    head = printf_string("DMA-latency-bound: DMA fixed latency is %.1f%% of the end time", a.share(a.path_dma_latency_ns));
  } else {
    head = printf_string("dependency-bound: hand-offs between instructions are %.1f%% of the end time",
               a.share(a.path_dependency_ns));
  }
  std::string s = "\nVerdict: " + head + " (along the critical path)\n  end time by cause:";
  for (int e = 0; e < isa::kNumEngines; ++e)
    if (a.path_engine_ns[e] > 0)
      s += printf_string(" %s %.3f us (%.1f%%);", isa::engine_name(isa::Engine(e)).data(), a.path_engine_ns[e] / 1000.0,
               a.share(a.path_engine_ns[e]));
  s += printf_string(" DMA data %.3f us (%.1f%%); DMA fixed latency %.3f us (%.1f%%, %llu transfers); dependency %.3f us "
           "(%.1f%%)\n",
           a.path_dma_data_ns / 1000.0, a.share(a.path_dma_data_ns), a.path_dma_latency_ns / 1000.0,
           a.share(a.path_dma_latency_ns), (unsigned long long)a.path_transfers_latency, a.path_dependency_ns / 1000.0,
           a.share(a.path_dependency_ns));
  s += "  engines active:";
  for (int e = 0; e < isa::kNumEngines; ++e)
    s += printf_string(" %s %.1f%%%s", isa::engine_name(isa::Engine(e)).data(), a.share(a.engine_busy_ns[e]),
             e + 1 < isa::kNumEngines ? "," : ";");
  s += printf_string(" no compute engine running %.1f%%\n", a.share(a.compute_idle_ns));
  const double T = a.total_ns > 0 ? a.total_ns : 1;
  auto pct = [](double x, double peak) { return peak > 0 ? 100.0 * x / peak : 0.0; };
  s += printf_string("  DMA: %.0f bytes at %.1f B/ns of %.1f B/ns peak (%.1f%%); HBM %.0f bytes at %.1f B/ns of %.1f B/ns "
           "(%.1f%%); useful HBM reads %.1f%%\n",
           a.dma_bytes, a.dma_bytes / T, a.dma_peak_bytes_per_ns, pct(a.dma_bytes / T, a.dma_peak_bytes_per_ns),
           a.hbm_bytes, a.hbm_bytes / T, a.hbm_peak_bytes_per_ns, pct(a.hbm_bytes / T, a.hbm_peak_bytes_per_ns),
           a.hbm_read_bytes > 0 ? 100.0 - pct(a.hbm_reload_bytes, a.hbm_read_bytes) : 100.0);
  s += printf_string("  DMA queues: %u used, %llu transfers in flight %.1f%% of the run (%.2f outstanding on average), data "
           "moving %.1f%%\n",
           a.dma_queues_used, (unsigned long long)a.dma_transfers, a.share(a.dma_in_flight_ns), a.dma_outstanding_avg,
           a.share(a.dma_active_ns));
  s += "  time waited:";
  for (int e = 0; e < isa::kNumEngines; ++e)
    s += printf_string(" %s %.3f us%s", isa::engine_name(isa::Engine(e)).data(), a.engine_waited_ns[e] / 1000.0,
             e + 1 < isa::kNumEngines ? "," : "");
  if (!a.stalls_by_cause.empty()) {
    const StallSum& top = a.stalls_by_cause.front();
    s += printf_string("; most: %s on %s (%s), %llu waits, %.3f us", top.engine.c_str(), top.on.c_str(), top.cause.c_str(),
             (unsigned long long)top.count, top.total_ns / 1000.0);
  }
  s += "\n\nWarnings:\n";
  if (a.warnings.empty()) s += "  none\n";
  // At most kShown warnings of a kind in full (a spilled kernel re-reads thousands of tensors); the JSON has all.
  constexpr size_t kShown = 5;
  std::map<std::string, size_t> total, seen;
  for (const ProfileWarning& w : a.warnings) ++total[w.kind];
  for (const ProfileWarning& w : a.warnings) {
    const size_t k = ++seen[w.kind];
    if (k <= kShown) s += "  [" + w.kind + "] " + w.message + "\n";
    if (k == kShown && total[w.kind] > kShown)
      s += printf_string("  [%s] ... and %zu more like these (all in --profile-json)\n", w.kind.c_str(), total[w.kind] - kShown);
  }
  return s;
}

std::string format_stall_sums(const ProfileAnalysis& a) {
  std::string s = "\nStalls by cause (every wait summed: engine ready, instruction not started):\n";
  if (a.stalls_by_cause.empty()) return s + "  none\n";
  s += printf_string("  %-7s %-10s %-22s %8s %11s %9s %9s  %s\n", "engine", "waited on", "cause", "count", "total(us)",
           "avg(ns)", "max(ns)", "detail");
  for (const StallSum& w : a.stalls_by_cause)
    s += printf_string("  %-7s %-10s %-22s %8llu %11.3f %9.1f %9.1f  %s\n", w.engine.c_str(), w.on.c_str(), w.cause.c_str(),
             (unsigned long long)w.count, w.total_ns / 1000.0, w.total_ns / double(w.count), w.max_ns,
             w.detail.c_str());
  s += "\nStalls by source line:\n";
  s += printf_string("  %-28s %8s %11s  %s\n", "source line", "count", "total(us)", "largest cause");
  for (const LineStall& l : a.stalls_by_line)
    s += printf_string("  %-28s %8llu %11.3f  %s\n", l.line.c_str(), (unsigned long long)l.count, l.total_ns / 1000.0,
             l.top.c_str());
  return s;
}

std::string format_profile_with(const isa::Program& p, const Result& r, const ProfileWaitFn& waited,
                                const isa::TargetDesc* target) {
  const View v{p, r};
  const std::optional<isa::TargetDesc> builtin = target ? std::nullopt : isa::find_target(r.target);
  const ProfileAnalysis an = analyze_profile(p, r, target ? *target : builtin.value_or(isa::TargetDesc{}), waited);
  std::string s = printf_string("Profile: %s on %s (%s): %.3f us, %llu cycles, %llu instructions, %llu DMA transfers\n",
                      p.kernel_name.c_str(), r.target.c_str(), r.mode.c_str(), r.total_ns / 1000.0,
                      (unsigned long long)r.total_cycles, (unsigned long long)r.instructions,
                      (unsigned long long)r.dma_transfers);
  s += printf_string("  MFU %.2f%%  MBU %.2f%%  DMA %.0f bytes (average transfer %.0f B)\n", r.mfu_estimated_percent,
           r.mbu_estimated_percent, r.dma_bytes, r.dma_transfers ? r.dma_bytes / double(r.dma_transfers) : 0.0);
  if (!r.timeline.empty()) s += format_verdict(an);
  s += "\nEngines:\n  engine    busy(us)   busy%  instructions\n";
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"}) {
    auto it = r.engines.find(e);
    EngineStats st = it == r.engines.end() ? EngineStats{} : it->second;
    s += printf_string("  %-7s %10.3f  %6.1f  %12llu\n", e, st.busy_ns / 1000.0, r.total_ns > 0 ? 100.0 * st.busy_ns / r.total_ns : 0.0,
             (unsigned long long)st.instructions);
  }
  if (r.timeline.empty()) return s + "\n(no timeline: run with timing to get per-line times and the critical path)\n";

  auto table = [&](const char* title, const char* key, const std::vector<BusyRow>& rows) {
    s += printf_string("\n%s (busy time; DMA transfers: data start to completion):\n", title);
    s += printf_string("  %-28s %8s %11s %9s  %s\n", key, "count", "busy(us)", "avg(ns)", "engines");
    for (const BusyRow& a : rows)
      s += printf_string("  %-28s %8llu %11.3f %9.1f  %s\n", a.key.c_str(), (unsigned long long)a.count, a.busy_ns / 1000.0,
               a.busy_ns / double(a.count), a.engines.c_str());
  };
  table("Time per source line", "source line", an.lines);
  table("Time per opcode", "opcode", an.opcodes);

  critical_path(v, s);

  std::vector<uint32_t> stalled;
  for (uint32_t id = 0; id < r.timeline.size(); ++id)
    if (r.timeline[id].cause != StallCause::none && r.timeline[id].start_ns > r.timeline[id].ready_ns) stalled.push_back(id);
  std::stable_sort(stalled.begin(), stalled.end(), [&](uint32_t a, uint32_t b) {
    return r.timeline[a].start_ns - r.timeline[a].ready_ns > r.timeline[b].start_ns - r.timeline[b].ready_ns;
  });
  if (stalled.size() > 10) stalled.resize(10);
  s += "\nBiggest stalls (engine ready, instruction not started):\n";
  if (stalled.empty()) s += "  none\n";
  for (uint32_t id : stalled) {
    const InstrTiming& t = r.timeline[id];
    std::string cross;
    if (waited && waited(isa::Engine(t.engine), t.index, cross)) {
      s += printf_string("  %9.3f us  %s at %.3f us: waited for %s\n", (t.start_ns - t.ready_ns) / 1000.0,
               v.describe({TimingRef::Instr, id}).c_str(), t.start_ns / 1000.0, cross.c_str());
      continue;
    }
    std::string why(stall_cause_name(t.cause));
    if (t.cause == StallCause::semaphore) why += " s" + std::to_string(t.sem) + " >= " + std::to_string(t.sem_value);
    s += printf_string("  %9.3f us  %s at %.3f us: waited for %s, released by %s\n", (t.start_ns - t.ready_ns) / 1000.0,
             v.describe({TimingRef::Instr, id}).c_str(), t.start_ns / 1000.0, why.c_str(), v.describe(t.pred).c_str());
  }
  return s + format_stall_sums(an);
}

}  // namespace nkisim::sim
