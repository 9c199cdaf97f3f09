// report.cpp - the --stats and --trace JSON writers for a run of any number of cores (deterministic: same
// RunResult -> same bytes).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/simulate.h"

namespace nkisim::sim {
using ordered_json = nlohmann::ordered_json;

namespace {
const char* const kEngineOrder[] = {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"};

bool is_dma_engine_track(const std::string& track) { return track.rfind("dma.e", 0) == 0; }

// Track order in the timeline: the five engines, then DMA queues, then DMA engines (numeric order).
std::vector<std::string> track_order(const Result& r, bool dma_engines) {
  std::vector<std::string> tracks(kEngineOrder, kEngineOrder + 5);
  std::map<int, std::string> queues, engines;
  for (const TraceEvent& e : r.trace) {
    if (e.track.rfind("dma.q", 0) == 0) queues.emplace(std::stoi(e.track.substr(5)), e.track);
    else if (is_dma_engine_track(e.track)) {
      if (dma_engines) engines.emplace(std::stoi(e.track.substr(5)), e.track);
    }
    else if (std::find(tracks.begin(), tracks.end(), e.track) == tracks.end()) tracks.push_back(e.track);
  }
  for (auto& [k, v] : queues) tracks.push_back(v);
  for (auto& [k, v] : engines) tracks.push_back(v);
  return tracks;
}
}  // namespace

bool trace_keeps_dma_engines(std::span<const Result* const> cores, TraceDetail detail) {
  if (detail != TraceDetail::automatic) return detail == TraceDetail::engines;
  size_t n = 0;
  for (const Result* r : cores)
    for (const TraceEvent& e : r->trace) n += is_dma_engine_track(e.track);
  return n <= kTraceDmaEngineSliceLimit;
}

namespace {

// One core's --stats document.
ordered_json stats_document(const Result& r) {
  ordered_json j;
  j["target"] = r.target;
  j["total_ns"] = r.total_ns;
  j["total_cycles"] = r.total_cycles;
  j["device_ns"] = r.device_ns;
  j["instructions"] = r.instructions;
  ordered_json engines = ordered_json::object();
  for (const char* name : kEngineOrder) {
    auto it = r.engines.find(name);
    EngineStats s = it == r.engines.end() ? EngineStats{} : it->second;
    engines[name] = {{"busy_ns", s.busy_ns},
                     {"instructions", s.instructions},
                     {"utilization_percent", r.total_ns > 0 ? 100.0 * s.busy_ns / r.total_ns : 0.0}};
  }
  j["engines"] = std::move(engines);
  j["mode"] = r.mode;
  j["dma"] = {{"transfers", r.dma_transfers},
              {"bytes", r.dma_bytes},
              {"average_transfer_bytes", r.dma_transfers ? r.dma_bytes / double(r.dma_transfers) : 0.0},
              {"hbm_read_bytes", r.hbm_read_bytes},
              {"hbm_write_bytes", r.hbm_write_bytes}};
  j["pe_macs"] = r.pe_macs;
  j["mfu_estimated_percent"] = r.mfu_estimated_percent;
  j["mbu_estimated_percent"] = r.mbu_estimated_percent;
  j["pe_average_throttle"] = r.pe_average_throttle;
  return j;
}

// The cross-core instruction (core_barrier / sendrecv) of `core` that sent signal (sem, n), as its global id
// in that core's timeline; -1 if it is not there.
int64_t signal_instruction(std::span<const isa::Program> programs, const RunResult& r, size_t core, uint16_t sem,
                           uint32_t n) {
  if (core >= programs.size() || core >= r.cores.size()) return -1;
  const Result& res = r.cores[core];
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const auto& stream = programs[core].streams[size_t(e)];
    for (uint32_t i = 0; i < stream.size(); ++i) {
      const isa::Instruction& x = stream[i];
      if (isa::has_trait(x.op, isa::Trait::CROSS_CORE) && x.params.sem == sem &&
          x.params.rimm == int32_t(n)) {
        const uint64_t id = uint64_t(res.instr_base[size_t(e)]) + i;
        return id < res.timeline.size() ? int64_t(id) : -1;
      }
    }
  }
  return -1;
}

}  // namespace

// Schema "nki-sim-stats/2": one shape for any core count (one core = cores[] of 1); version 1 (unnamed) wrote a
// single core's document flat.
void write_stats_json(const RunResult& r, std::ostream& os) {
  ordered_json j;
  j["schema"] = "nki-sim-stats/2";
  j["lnc"] = r.cores.size();
  j["target"] = r.cores.empty() ? "" : r.cores[0].target;
  j["total_ns"] = r.total_ns;
  uint64_t cycles = 0;
  for (const Result& c : r.cores) cycles = std::max(cycles, c.total_cycles);
  j["total_cycles"] = cycles;
  double device = 0;
  for (const Result& c : r.cores) device = std::max(device, c.device_ns);
  j["device_ns"] = device;
  ordered_json cores = ordered_json::array();
  for (const Result& c : r.cores) cores.push_back(stats_document(c));
  j["cores"] = std::move(cores);
  os << j.dump(2) << "\n";
}

void write_trace_json(std::span<const isa::Program> programs, const RunResult& r, std::ostream& os,
                      TraceDetail detail) {
  const size_t n = r.cores.size();
  std::vector<const Result*> all;
  for (const Result& c : r.cores) all.push_back(&c);
  const bool dma_engines = trace_keeps_dma_engines(all, detail);
  ordered_json events = ordered_json::array();
  uint64_t flow_id = 0;
  std::vector<std::map<std::string, int>> tids(n);  // per core: track name -> tid
  for (size_t c = 0; c < n; ++c) {
    const Result& res = r.cores[c];
    const int pid = int(c) + 1;
    std::map<std::string, int>& tid = tids[c];
    const std::vector<std::string> tracks = track_order(res, dma_engines);
    const std::string process = n == 1 ? "NeuronCore (" + res.target + ")"
                                       : "NeuronCore " + std::to_string(c) + " (" + res.target + ")";
    events.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", process}}}});
    for (size_t i = 0; i < tracks.size(); ++i) {
      int t = int(i) + 1;
      tid[tracks[i]] = t;
      events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", tracks[i]}}}});
      events.push_back(
          {{"ph", "M"}, {"pid", pid}, {"tid", t}, {"name", "thread_sort_index"}, {"args", {{"sort_index", t}}}});
    }
    for (const TraceEvent& e : res.trace) {
      if (!dma_engines && is_dma_engine_track(e.track)) continue;
      events.push_back({{"ph", "X"},
                        {"pid", pid},
                        {"tid", tid[e.track]},
                        {"ts", e.start_ns / 1000.0},
                        {"dur", e.dur_ns / 1000.0},
                        {"cat", e.cat},
                        {"name", e.name},
                        {"args",
                         {{"opcode", e.name},
                          {"operands", e.operands},
                          {"duration_ns", e.dur_ns},
                          {"nki_source_location", e.source_location}}}});
    }
    // Semaphore dependencies as flow arrows: from the end of the updating slice to the start of the waiter.
    for (const TraceFlow& f : res.flows) {
      auto from = tid.find(f.from_track), to = tid.find(f.to_track);
      if (from == tid.end() || to == tid.end()) continue;
      ++flow_id;
      events.push_back({{"ph", "s"}, {"id", flow_id}, {"pid", pid}, {"tid", from->second},
                        {"ts", (f.from_ns - 0.001) / 1000.0}, {"cat", "semaphore"}, {"name", f.name}});
      events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"pid", pid}, {"tid", to->second},
                        {"ts", f.to_ns / 1000.0}, {"cat", "semaphore"}, {"name", f.name}});
    }
    const std::string prefix = n == 1 ? "" : "core" + std::to_string(c) + ".";
    for (const TraceCounter& k : res.counters)
      events.push_back({{"ph", "C"}, {"pid", pid}, {"name", prefix + k.name}, {"ts", k.t_ns / 1000.0},
                        {"args", {{"value", k.value}}}});
  }
  // Cross-core signals (core_barrier, sendrecv) as flow arrows: from the sending core's instruction to the
  // peer core's matching one, when the signal is what it waited for (docs/lnc.md): the peer started after
  // the sender did, once the signal had arrived. The other direction of the pair (the signal of the core
  // that became ready last, which found the peer already waiting) would point back in time and is left out.
  for (const RunResult::Signal& g : r.signals) {
    const size_t from = g.from, to = 1 - g.from;
    if (n != 2 || from > 1) continue;
    const int64_t a = signal_instruction(programs, r, from, g.sem, g.n),
                  b = signal_instruction(programs, r, to, g.sem, g.n);
    if (a < 0 || b < 0) continue;
    const InstrTiming &src = r.cores[from].timeline[size_t(a)], &dst = r.cores[to].timeline[size_t(b)];
    if (dst.start_ns < src.start_ns || dst.start_ns < g.arrive_ns) continue;
    const std::string src_track(isa::engine_name(isa::Engine(src.engine))),
        dst_track(isa::engine_name(isa::Engine(dst.engine)));
    auto ts = tids[from].find(src_track), td = tids[to].find(dst_track);
    if (ts == tids[from].end() || td == tids[to].end()) continue;
    const std::string name = std::string(isa::info(programs[from].streams[src.engine][src.index].op).mnemonic) +
                             " signal to core " + std::to_string(to);
    ++flow_id;
    events.push_back({{"ph", "s"}, {"id", flow_id}, {"pid", int(from) + 1}, {"tid", ts->second},
                      {"ts", src.start_ns / 1000.0}, {"cat", "cross-core"}, {"name", name},
                      {"args", {{"sent_ns", g.sent_ns}, {"arrive_ns", g.arrive_ns}}}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"pid", int(to) + 1}, {"tid", td->second},
                      {"ts", dst.start_ns / 1000.0}, {"cat", "cross-core"}, {"name", name}});
  }
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ns";
  os << j.dump() << "\n";
}

}  // namespace nkisim::sim
