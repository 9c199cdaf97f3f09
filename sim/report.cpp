// report.cpp - the --stats and --trace JSON writers (deterministic: same Result -> same bytes).
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

void write_stats_json(const Result& r, std::ostream& os) {
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
  os << j.dump(2) << "\n";
}

void write_trace_json(const Result& r, std::ostream& os, TraceDetail detail) {
  const Result* self[] = {&r};
  const bool dma_engines = trace_keeps_dma_engines(self, detail);
  std::vector<std::string> tracks = track_order(r, dma_engines);
  std::map<std::string, int> tid;
  ordered_json events = ordered_json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "NeuronCore (" + r.target + ")"}}}});
  for (size_t i = 0; i < tracks.size(); ++i) {
    int t = int(i) + 1;
    tid[tracks[i]] = t;
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", tracks[i]}}}});
    events.push_back(
        {{"ph", "M"}, {"pid", 1}, {"tid", t}, {"name", "thread_sort_index"}, {"args", {{"sort_index", t}}}});
  }
  for (const TraceEvent& e : r.trace) {
    if (!dma_engines && is_dma_engine_track(e.track)) continue;
    events.push_back({{"ph", "X"},
                      {"pid", 1},
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
  uint64_t flow_id = 0;
  for (const TraceFlow& f : r.flows) {
    auto from = tid.find(f.from_track), to = tid.find(f.to_track);
    if (from == tid.end() || to == tid.end()) continue;
    ++flow_id;
    events.push_back({{"ph", "s"}, {"id", flow_id}, {"pid", 1}, {"tid", from->second},
                      {"ts", (f.from_ns - 0.001) / 1000.0}, {"cat", "semaphore"}, {"name", f.name}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"pid", 1}, {"tid", to->second},
                      {"ts", f.to_ns / 1000.0}, {"cat", "semaphore"}, {"name", f.name}});
  }
  for (const TraceCounter& c : r.counters)
    events.push_back({{"ph", "C"}, {"pid", 1}, {"name", c.name}, {"ts", c.t_ns / 1000.0}, {"args", {{"value", c.value}}}});
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ns";
  os << j.dump() << "\n";
}

}  // namespace nkisim::sim
