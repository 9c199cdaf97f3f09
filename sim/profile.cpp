// profile.cpp - the --profile text report from a timed Result with a timeline: engine busy %, time per
// kernel source line and per opcode, the critical path through the dependency graph, the biggest stalls.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "sim/cost.h"
#include "sim/explain.h"
#include "sim/simulate.h"

namespace nkisim::sim {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

struct View {
  const isa::Program& p;
  const Result& r;
  const isa::Instruction& ins(uint32_t id) const {
    const InstrTiming& t = r.timeline[id];
    return p.streams[t.engine][t.index];
  }
  std::string loc(const isa::Instruction& i) const {  // "file.py:12" (base name: the tables stay narrow)
    if (i.loc == 0 || i.loc >= p.locations.size()) return "?";
    const SourceLoc& l = p.locations[i.loc];
    const size_t slash = l.file.find_last_of('/');
    return (slash == std::string::npos ? l.file : l.file.substr(slash + 1)) + ":" + std::to_string(l.line);
  }
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

struct Acc {
  uint64_t count = 0;
  double busy = 0;
  std::string engines;
  void add(double ns, const std::string& e) {
    ++count;
    busy += ns;
    if (engines.find(e) == std::string::npos) engines += (engines.empty() ? "" : " ") + e;
  }
};

void critical_path(const View& v, std::string& s) {
  TimingRef last;
  double t_end = -1;
  for (uint32_t id = 0; id < v.r.timeline.size(); ++id)
    if (v.r.timeline[id].end_ns > t_end) t_end = v.r.timeline[id].end_ns, last = {TimingRef::Instr, id};
  for (uint32_t x = 0; x < v.r.transfers.size(); ++x)
    if (v.r.transfers[x].done_ns >= t_end) t_end = v.r.transfers[x].done_ns, last = {TimingRef::Transfer, x};
  std::vector<TimingRef> path;
  for (TimingRef n = last; n.kind != TimingRef::None && path.size() <= v.r.timeline.size() + v.r.transfers.size();
       n = v.pred(n))
    path.push_back(n);
  std::reverse(path.begin(), path.end());
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
  s += fmt("\nCritical path (%zu steps, ends at %.3f us; 'on path' = how far each step moved the end):\n", path.size(),
           t_end / 1000.0);
  s += "  start(us)    end(us)  on path(us)  track        what                    count  source\n";
  auto row = [&](const Seg& g) {
    s += fmt("  %9.3f  %9.3f  %11.3f  %-11s  %-22s %6zu  %s\n", g.t0 / 1000.0, g.t1 / 1000.0, g.charged / 1000.0,
             g.track.c_str(), g.what.c_str(), g.n, g.where.c_str());
  };
  const size_t kShow = 20;
  for (size_t i = 0; i < segs.size(); ++i) {
    if (segs.size() > 2 * kShow && i == kShow) s += fmt("  ... %zu more segments ...\n", segs.size() - 2 * kShow);
    if (segs.size() > 2 * kShow && i >= kShow && i < segs.size() - kShow) continue;
    row(segs[i]);
  }
  std::map<std::string, double> per_track;
  for (const Seg& g : segs) per_track[g.track.rfind("dma.", 0) == 0 ? "dma" : g.track] += g.charged;
  s += "  time on the path by track:";
  for (auto& [k, ns] : per_track) s += fmt(" %s %.3f us;", k.c_str(), ns / 1000.0);
  s += "\n";
}

}  // namespace

std::string format_profile(const isa::Program& p, const Result& r) { return format_profile_with(p, r, nullptr); }

std::string format_profile_with(const isa::Program& p, const Result& r, const ProfileWaitFn& waited) {
  const View v{p, r};
  std::string s = fmt("Profile: %s on %s (%s): %.3f us, %llu cycles, %llu instructions, %llu DMA transfers\n",
                      p.kernel_name.c_str(), r.target.c_str(), r.mode.c_str(), r.total_ns / 1000.0,
                      (unsigned long long)r.total_cycles, (unsigned long long)r.instructions,
                      (unsigned long long)r.dma_transfers);
  s += fmt("  MFU %.2f%%  MBU %.2f%%  DMA %.0f bytes (average transfer %.0f B)\n", r.mfu_estimated_percent,
           r.mbu_estimated_percent, r.dma_bytes, r.dma_transfers ? r.dma_bytes / double(r.dma_transfers) : 0.0);
  s += "\nEngines:\n  engine    busy(us)   busy%  instructions\n";
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"}) {
    auto it = r.engines.find(e);
    EngineStats st = it == r.engines.end() ? EngineStats{} : it->second;
    s += fmt("  %-7s %10.3f  %6.1f  %12llu\n", e, st.busy_ns / 1000.0, r.total_ns > 0 ? 100.0 * st.busy_ns / r.total_ns : 0.0,
             (unsigned long long)st.instructions);
  }
  if (r.timeline.empty()) return s + "\n(no timeline: run with timing to get per-line times and the critical path)\n";

  std::map<std::string, Acc> lines, ops;
  for (uint32_t id = 0; id < r.timeline.size(); ++id) {
    const InstrTiming& t = r.timeline[id];
    const isa::Instruction& ins = v.ins(id);
    lines[v.loc(ins)].add(t.end_ns - t.start_ns, v.engine(id));
    ops[isa::info(ins.op).mnemonic].add(t.end_ns - t.start_ns, v.engine(id));
  }
  for (const TransferTiming& x : r.transfers) {
    lines[v.loc(v.ins(x.instr))].add(x.done_ns - x.start_ns, "dma");
    ops["(dma transfer)"].add(x.done_ns - x.start_ns, "dma");
  }
  auto table = [&](const char* title, const char* key, const std::map<std::string, Acc>& m) {
    std::vector<std::pair<std::string, Acc>> rows(m.begin(), m.end());
    std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.busy > b.second.busy; });
    s += fmt("\n%s (busy time; DMA transfers: data start to completion):\n", title);
    s += fmt("  %-28s %8s %11s %9s  %s\n", key, "count", "busy(us)", "avg(ns)", "engines");
    for (auto& [k, a] : rows)
      s += fmt("  %-28s %8llu %11.3f %9.1f  %s\n", k.c_str(), (unsigned long long)a.count, a.busy / 1000.0,
               a.busy / double(a.count), a.engines.c_str());
  };
  table("Time per source line", "source line", lines);
  table("Time per opcode", "opcode", ops);

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
      s += fmt("  %9.3f us  %s at %.3f us: waited for %s\n", (t.start_ns - t.ready_ns) / 1000.0,
               v.describe({TimingRef::Instr, id}).c_str(), t.start_ns / 1000.0, cross.c_str());
      continue;
    }
    std::string why(stall_cause_name(t.cause));
    if (t.cause == StallCause::semaphore) why += " s" + std::to_string(t.sem) + " >= " + std::to_string(t.sem_value);
    s += fmt("  %9.3f us  %s at %.3f us: waited for %s, released by %s\n", (t.start_ns - t.ready_ns) / 1000.0,
             v.describe({TimingRef::Instr, id}).c_str(), t.start_ns / 1000.0, why.c_str(), v.describe(t.pred).c_str());
  }
  return s;
}

}  // namespace nkisim::sim
