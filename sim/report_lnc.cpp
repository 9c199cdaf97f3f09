// report_lnc.cpp - --stats and --trace for an LNC=2 run (docs/lnc.md): the per-core documents of
// report.cpp, combined. Stats: {"lnc", "target", "total_ns", "total_cycles", "cores": [per-core stats]};
// trace: one Chrome-trace process per core ("NeuronCore <c> (<target>)", pid c + 1) in one timeline.
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "sim/simulate.h"

namespace nkisim::sim {
using ordered_json = nlohmann::ordered_json;

void write_lnc_stats_json(const LncResult& r, std::ostream& os) {
  ordered_json j;
  j["lnc"] = r.cores.size();
  j["target"] = r.cores.empty() ? "" : r.cores[0].target;
  j["total_ns"] = r.total_ns;
  uint64_t cycles = 0;
  for (const Result& c : r.cores) cycles = std::max(cycles, c.total_cycles);
  j["total_cycles"] = cycles;
  ordered_json cores = ordered_json::array();
  for (const Result& c : r.cores) {
    std::ostringstream one;
    write_stats_json(c, one);
    cores.push_back(ordered_json::parse(one.str()));
  }
  j["cores"] = std::move(cores);
  os << j.dump(2) << "\n";
}

void write_lnc_trace_json(const LncResult& r, std::ostream& os) {
  ordered_json events = ordered_json::array();
  uint64_t flow_base = 0;
  for (size_t c = 0; c < r.cores.size(); ++c) {
    std::ostringstream one;
    write_trace_json(r.cores[c], one);
    ordered_json t = ordered_json::parse(one.str());
    uint64_t max_flow = 0;
    for (auto& e : t["traceEvents"]) {
      e["pid"] = int(c) + 1;
      if (e.value("name", "") == "process_name" && e.value("ph", "") == "M")
        e["args"]["name"] = "NeuronCore " + std::to_string(c) + " (" + r.cores[c].target + ")";
      if (e.contains("id")) {
        const uint64_t id = e["id"].get<uint64_t>();
        max_flow = std::max(max_flow, id);
        e["id"] = id + flow_base;
      }
      if (e.value("ph", "") == "C") e["name"] = "core" + std::to_string(c) + "." + e["name"].get<std::string>();
      events.push_back(std::move(e));
    }
    flow_base += max_flow;
  }
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ns";
  os << j.dump() << "\n";
}

}  // namespace nkisim::sim
