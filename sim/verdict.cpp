// verdict.cpp - the profile's analysis (docs/profile.md): the end time split along the critical path, the
// verdict that follows from it, the evidence (engine active %, DMA bytes/ns against the peak, queue occupancy,
// time waited), stalls summed by cause and by source line, and time per source line and per opcode.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>

#include "sim/profile_analysis.h"

namespace nkisim::sim {

std::string source_line(const isa::Program& p, const isa::Instruction& i) {
  if (i.loc == 0 || i.loc >= p.locations.size()) return "?";
  const SourceLoc& l = p.locations[i.loc];
  const size_t slash = l.file.find_last_of('/');
  return (slash == std::string::npos ? l.file : l.file.substr(slash + 1)) + ":" + std::to_string(l.line);
}

std::vector<TimingRef> critical_path(const Result& r) {
  TimingRef last;
  double t_end = -1;
  for (uint32_t id = 0; id < r.timeline.size(); ++id)
    if (r.timeline[id].end_ns > t_end) t_end = r.timeline[id].end_ns, last = {TimingRef::Instr, id};
  for (uint32_t x = 0; x < r.transfers.size(); ++x)
    if (r.transfers[x].done_ns >= t_end) t_end = r.transfers[x].done_ns, last = {TimingRef::Transfer, x};
  std::vector<TimingRef> path;
  for (TimingRef n = last; n.kind != TimingRef::None && path.size() <= r.timeline.size() + r.transfers.size();
       n = n.kind == TimingRef::Instr ? r.timeline[n.id].pred : r.transfers[n.id].pred)
    path.push_back(n);
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

const isa::Instruction& instr(const isa::Program& p, const Result& r, uint32_t id) {
  return p.streams[r.timeline[id].engine][r.timeline[id].index];
}
std::string engine_name(const Result& r, uint32_t id) {
  return std::string(isa::engine_name(isa::Engine(r.timeline[id].engine)));
}

// Length of the union of [a, b) intervals.
double union_length(std::vector<std::pair<double, double>> iv) {
  std::sort(iv.begin(), iv.end());
  double total = 0, lo = 0, hi = -1;
  for (auto [a, b] : iv) {
    if (b <= a) continue;
    if (a > hi) {
      if (hi > lo) total += hi - lo;
      lo = a, hi = b;
    } else {
      hi = std::max(hi, b);
    }
  }
  return hi > lo ? total + hi - lo : total;
}

// Splits the end time along the critical path. Each step is charged end(step) - end(previous step) (so the
// charges sum to the path's end); an instruction's charge is its own duration (its engine) plus the gap
// before it (a dependency hand-off); a transfer's is its fixed latency (trigger to eligible) when its
// predecessor is the trigger, the rest data movement (moving its bytes or waiting behind other transfers).
void split_path(const Result& r, ProfileAnalysis& a) {
  double prev_end = 0;
  for (TimingRef n : critical_path(r)) {
    ++a.path_steps;
    if (n.kind == TimingRef::Instr) {
      const InstrTiming& t = r.timeline[n.id];
      const double charged = std::max(0.0, t.end_ns - prev_end);
      const double own = std::min(charged, t.end_ns - t.start_ns);
      a.path_engine_ns[t.engine] += own;
      a.path_dependency_ns += charged - own;
      prev_end = std::max(prev_end, t.end_ns);
    } else {
      const TransferTiming& x = r.transfers[n.id];
      const double charged = std::max(0.0, x.done_ns - prev_end);
      double latency = 0;
      if (x.pred.kind == TimingRef::Instr) latency = std::clamp(x.eligible_ns - std::max(prev_end, x.enqueue_ns), 0.0, charged);
      if (latency > 0) ++a.path_transfers_latency;
      a.path_dma_latency_ns += latency;
      a.path_dma_data_ns += charged - latency;
      prev_end = std::max(prev_end, x.done_ns);
    }
  }
}

// The largest share of the end time names the verdict (ties: the order below).
void decide(ProfileAnalysis& a) {
  double best = -1;
  auto consider = [&](double ns, const char* verdict, std::string_view engine) {
    if (ns > best) best = ns, a.verdict = verdict, a.bound_engine = std::string(engine);
  };
  for (int e = 0; e < isa::kNumEngines; ++e)
    consider(a.path_engine_ns[e], "engine-bound", isa::engine_name(isa::Engine(e)));
  consider(a.path_dma_data_ns, "dma-bandwidth-bound", "");
  consider(a.path_dma_latency_ns, "dma-latency-bound", "");
  consider(a.path_dependency_ns, "dependency-bound", "");
}

void evidence(const Result& r, const isa::TargetDesc& t, ProfileAnalysis& a) {
  std::vector<std::pair<double, double>> compute, in_flight;
  for (const InstrTiming& x : r.timeline) {
    ++a.engine_instructions[x.engine];
    if (isa::Engine(x.engine) != isa::Engine::Sync) compute.push_back({x.start_ns, x.end_ns});
  }
  for (int e = 0; e < isa::kNumEngines; ++e) {
    auto it = r.engines.find(std::string(isa::engine_name(isa::Engine(e))));
    if (it != r.engines.end()) a.engine_busy_ns[e] = it->second.busy_ns;
  }
  a.compute_idle_ns = std::max(0.0, a.total_ns - union_length(std::move(compute)));
  std::set<uint16_t> queues;
  double outstanding = 0;
  for (const TransferTiming& x : r.transfers) {
    in_flight.push_back({x.enqueue_ns, x.done_ns});
    outstanding += x.done_ns - x.enqueue_ns;
    queues.insert(x.queue);
  }
  a.dma_in_flight_ns = union_length(std::move(in_flight));
  a.dma_outstanding_avg = a.total_ns > 0 ? outstanding / a.total_ns : 0;
  a.dma_queues_used = uint32_t(queues.size());
  a.dma_transfers = r.dma_transfers;
  a.dma_bytes = r.dma_bytes;
  a.hbm_bytes = r.hbm_read_bytes + r.hbm_write_bytes;
  a.hbm_read_bytes = r.hbm_read_bytes;
  a.dma_peak_bytes_per_ns = t.dma_engines * t.dma_engine_bytes_per_ns;
  a.hbm_peak_bytes_per_ns = t.hbm_bytes_per_ns;
  a.dma_fixed_ns = t.dma_fixed_ns;
  auto it = r.engines.find("dma");
  a.dma_active_ns = it == r.engines.end() ? 0 : it->second.busy_ns;
}

void stall_sums(const isa::Program& p, const Result& r, const ProfileWaitFn& waited, ProfileAnalysis& a) {
  std::map<std::tuple<std::string, std::string, std::string>, StallSum> by_cause;
  std::map<std::tuple<std::string, std::string, std::string>, std::set<uint16_t>> queues, sems;
  struct LineAcc {
    LineStall s;
    std::map<std::string, double> labels;
  };
  std::map<std::string, LineAcc> by_line;
  for (uint32_t id = 0; id < r.timeline.size(); ++id) {
    const InstrTiming& t = r.timeline[id];
    const double w = t.start_ns - t.ready_ns;
    if (t.cause == StallCause::none || w <= 0) continue;
    a.engine_waited_ns[t.engine] += w;
    const std::string eng = engine_name(r, id);
    std::string cause(stall_cause_name(t.cause)), on = "?";
    int queue = -1;
    std::string cross;
    if (waited && waited(isa::Engine(t.engine), t.index, cross)) {
      cause = on = "peer core";
    } else if (t.cause == StallCause::dependency) {
      on = eng;
    } else if (t.pred.kind == TimingRef::Instr) {
      on = engine_name(r, t.pred.id);
    } else if (t.pred.kind == TimingRef::Transfer) {
      on = "dma";
      queue = r.transfers[t.pred.id].queue;
    }
    const auto key = std::make_tuple(eng, cause, on);
    StallSum& s = by_cause[key];
    s.engine = eng, s.cause = cause, s.on = on;
    ++s.count;
    s.total_ns += w;
    s.max_ns = std::max(s.max_ns, w);
    if (queue >= 0) queues[key].insert(uint16_t(queue));
    if (t.cause == StallCause::semaphore && cause != "peer core") sems[key].insert(t.sem);
    LineAcc& l = by_line[source_line(p, instr(p, r, id))];
    ++l.s.count;
    l.s.total_ns += w;
    l.labels[eng + " on " + on + " (" + cause + ")"] += w;
  }
  for (auto& [key, s] : by_cause) {
    auto q = queues.find(key);
    if (q != queues.end()) {
      s.detail = q->second.size() == 1 ? "queue" : "queues";
      for (uint16_t x : q->second) s.detail += " " + std::to_string(x);
    }
    // The binding semaphores (the first kMaxSems of them).
    constexpr size_t kMaxSems = 8;
    if (auto w = sems.find(key); w != sems.end()) {
      s.detail += s.detail.empty() ? "" : "; ";
      size_t n = 0;
      for (uint16_t x : w->second)
        if (n++ < kMaxSems) s.detail += (n > 1 ? " s" : "s") + std::to_string(x);
      if (w->second.size() > kMaxSems) s.detail += " (" + std::to_string(w->second.size()) + " semaphores)";
    }
    a.stalls_by_cause.push_back(s);
  }
  for (auto& [line, l] : by_line) {
    l.s.line = line;
    double best = -1;
    for (auto& [label, ns] : l.labels)
      if (ns > best) best = ns, l.s.top = label;
    a.stalls_by_line.push_back(l.s);
  }
  std::stable_sort(a.stalls_by_cause.begin(), a.stalls_by_cause.end(),
                   [](const StallSum& x, const StallSum& y) { return x.total_ns > y.total_ns; });
  std::stable_sort(a.stalls_by_line.begin(), a.stalls_by_line.end(),
                   [](const LineStall& x, const LineStall& y) { return x.total_ns > y.total_ns; });
}

void busy_tables(const isa::Program& p, const Result& r, ProfileAnalysis& a) {
  std::map<std::string, BusyRow> lines, ops;
  auto add = [](BusyRow& row, double ns, const std::string& e) {
    ++row.count;
    row.busy_ns += ns;
    if (row.engines.find(e) == std::string::npos) row.engines += (row.engines.empty() ? "" : " ") + e;
  };
  for (uint32_t id = 0; id < r.timeline.size(); ++id) {
    const InstrTiming& t = r.timeline[id];
    if (!t.issued) continue;  // e.g. the body of a loop that ran zero times
    const isa::Instruction& ins = instr(p, r, id);
    add(lines[source_line(p, ins)], t.end_ns - t.start_ns, engine_name(r, id));
    add(ops[isa::info(ins.op).mnemonic], t.end_ns - t.start_ns, engine_name(r, id));
  }
  for (const TransferTiming& x : r.transfers) {
    add(lines[source_line(p, instr(p, r, x.instr))], x.done_ns - x.start_ns, "dma");
    add(ops["(dma transfer)"], x.done_ns - x.start_ns, "dma");
  }
  for (auto* m : {&lines, &ops}) {
    std::vector<BusyRow>& out = m == &lines ? a.lines : a.opcodes;
    for (auto& [k, row] : *m) {
      out.push_back(row);
      out.back().key = k;
    }
    std::stable_sort(out.begin(), out.end(), [](const BusyRow& x, const BusyRow& y) { return x.busy_ns > y.busy_ns; });
  }
}

}  // namespace

ProfileAnalysis analyze_profile(const isa::Program& p, const Result& r, const isa::TargetDesc& t,
                                const ProfileWaitFn& waited) {
  ProfileAnalysis a;
  a.total_ns = r.total_ns;
  evidence(r, t, a);
  if (r.timeline.empty()) return a;
  split_path(r, a);
  decide(a);
  stall_sums(p, r, waited, a);
  busy_tables(p, r, a);
  add_profile_warnings(p, r, t, a);
  return a;
}

}  // namespace nkisim::sim
