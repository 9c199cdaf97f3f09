// report_lnc.cpp - --stats and --trace for an LNC=2 run (docs/lnc.md): the per-core documents of
// report.cpp, combined. Stats: {"lnc", "target", "total_ns", "total_cycles", "cores": [per-core stats]};
// trace: one Chrome-trace process per core ("NeuronCore <c> (<target>)", pid c + 1) in one timeline.
#include <map>
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
  double device = 0;
  for (const Result& c : r.cores) device = std::max(device, c.device_ns);
  j["device_ns"] = device;
  ordered_json cores = ordered_json::array();
  for (const Result& c : r.cores) {
    std::ostringstream one;
    write_stats_json(c, one);
    cores.push_back(ordered_json::parse(one.str()));
  }
  j["cores"] = std::move(cores);
  os << j.dump(2) << "\n";
}

namespace {

// The cross-core instruction (core_barrier / sendrecv) of `core` that sent signal (sem, n), as its global id
// in that core's timeline; -1 if it is not there.
int64_t signal_instruction(std::span<const isa::Program> programs, const LncResult& r, size_t core, uint16_t sem,
                           uint32_t n) {
  if (core >= programs.size() || core >= r.cores.size()) return -1;
  const Result& res = r.cores[core];
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const auto& stream = programs[core].streams[size_t(e)];
    for (uint32_t i = 0; i < stream.size(); ++i) {
      const isa::Instruction& x = stream[i];
      if ((x.op == isa::Opcode::core_barrier || x.op == isa::Opcode::sendrecv) && x.params.sem == sem &&
          x.params.rimm == int32_t(n)) {
        const uint64_t id = uint64_t(res.instr_base[size_t(e)]) + i;
        return id < res.timeline.size() ? int64_t(id) : -1;
      }
    }
  }
  return -1;
}

}  // namespace

void write_lnc_trace_json(std::span<const isa::Program> programs, const LncResult& r, std::ostream& os,
                          TraceDetail detail) {
  std::vector<const Result*> all;
  for (const Result& c : r.cores) all.push_back(&c);
  detail = trace_keeps_dma_engines(all, detail) ? TraceDetail::engines : TraceDetail::queues;
  ordered_json events = ordered_json::array();
  uint64_t flow_base = 0;
  std::vector<std::map<std::string, int>> tids(r.cores.size());  // per core: track name -> tid
  for (size_t c = 0; c < r.cores.size(); ++c) {
    std::ostringstream one;
    write_trace_json(r.cores[c], one, detail);
    ordered_json t = ordered_json::parse(one.str());
    uint64_t max_flow = 0;
    for (auto& e : t["traceEvents"]) {
      e["pid"] = int(c) + 1;
      if (e.value("name", "") == "thread_name" && e.value("ph", "") == "M")
        tids[c][e["args"]["name"].get<std::string>()] = e["tid"].get<int>();
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
  // Cross-core signals (core_barrier, sendrecv) as flow arrows: from the sending core's instruction to the
  // peer core's matching one, when the signal is what it waited for (docs/lnc.md): the peer started after
  // the sender did, once the signal had arrived. The other direction of the pair (the signal of the core
  // that became ready last, which found the peer already waiting) would point back in time and is left out.
  for (const LncResult::Signal& g : r.signals) {
    const size_t from = g.from, to = 1 - g.from;
    if (r.cores.size() != 2 || from > 1) continue;
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
    ++flow_base;
    events.push_back({{"ph", "s"}, {"id", flow_base}, {"pid", int(from) + 1}, {"tid", ts->second},
                      {"ts", src.start_ns / 1000.0}, {"cat", "cross-core"}, {"name", name},
                      {"args", {{"sent_ns", g.sent_ns}, {"arrive_ns", g.arrive_ns}}}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_base}, {"pid", int(to) + 1}, {"tid", td->second},
                      {"ts", dst.start_ns / 1000.0}, {"cat", "cross-core"}, {"name", name}});
  }
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ns";
  os << j.dump() << "\n";
}

}  // namespace nkisim::sim
