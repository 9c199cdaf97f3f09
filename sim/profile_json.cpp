// profile_json.cpp - --profile-json: the profile's analysis as JSON for scripts, schema "nki-sim-profile/2"
// (docs/profile.md lists every field). Deterministic: the same run gives the same bytes.
#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/profile_analysis.h"

namespace nkisim::sim {
using ordered_json = nlohmann::ordered_json;

namespace {

ordered_json busy_rows(const std::vector<BusyRow>& rows, const char* key) {
  ordered_json out = ordered_json::array();
  for (const BusyRow& b : rows)
    out.push_back({{key, b.key}, {"count", b.count}, {"busy_ns", b.busy_ns}, {"engines", b.engines}});
  return out;
}

ordered_json profile_document(const isa::Program& p, const Result& r, const isa::TargetDesc& t,
                              const ProfileWaitFn& waited = nullptr) {
  const ProfileAnalysis a = analyze_profile(p, r, t, waited);
  ordered_json j;
  j["kernel"] = p.kernel_name;
  j["target"] = r.target;
  j["mode"] = r.mode;
  j["total_ns"] = r.total_ns;
  j["total_cycles"] = r.total_cycles;
  j["instructions"] = r.instructions;
  j["verdict"] = {{"kind", a.verdict}, {"engine", a.bound_engine}};
  ordered_json path = ordered_json::object();
  for (int e = 0; e < isa::kNumEngines; ++e) path[std::string(isa::engine_name(isa::Engine(e)))] = a.path_engine_ns[e];
  path["dma_data"] = a.path_dma_data_ns;
  path["dma_latency"] = a.path_dma_latency_ns;
  path["dependency"] = a.path_dependency_ns;
  j["end_time_ns_by_cause"] = std::move(path);
  j["critical_path_steps"] = a.path_steps;
  j["critical_path_transfers_with_latency"] = a.path_transfers_latency;
  ordered_json engines = ordered_json::object();
  for (int e = 0; e < isa::kNumEngines; ++e)
    engines[std::string(isa::engine_name(isa::Engine(e)))] = {{"busy_ns", a.engine_busy_ns[e]},
                                                              {"active_percent", a.share(a.engine_busy_ns[e])},
                                                              {"instructions", a.engine_instructions[e]},
                                                              {"waited_ns", a.engine_waited_ns[e]}};
  engines["dma"] = {{"busy_ns", a.dma_active_ns},
                    {"active_percent", a.share(a.dma_active_ns)},
                    {"instructions", a.dma_transfers},
                    {"waited_ns", 0.0}};
  j["engines"] = std::move(engines);
  j["compute_idle_ns"] = a.compute_idle_ns;
  const double T = a.total_ns > 0 ? a.total_ns : 1;
  j["dma"] = {{"transfers", a.dma_transfers},
              {"bytes", a.dma_bytes},
              {"bytes_per_ns", a.dma_bytes / T},
              {"peak_bytes_per_ns", a.dma_peak_bytes_per_ns},
              {"hbm_bytes", a.hbm_bytes},
              {"hbm_bytes_per_ns", a.hbm_bytes / T},
              {"hbm_peak_bytes_per_ns", a.hbm_peak_bytes_per_ns},
              {"hbm_read_bytes", a.hbm_read_bytes},
              {"hbm_reload_bytes", a.hbm_reload_bytes},
              {"active_ns", a.dma_active_ns},
              {"in_flight_ns", a.dma_in_flight_ns},
              {"outstanding_average", a.dma_outstanding_avg},
              {"queues_used", a.dma_queues_used},
              {"fixed_ns", a.dma_fixed_ns}};
  ordered_json causes = ordered_json::array();
  for (const StallSum& s : a.stalls_by_cause)
    causes.push_back({{"engine", s.engine}, {"on", s.on}, {"cause", s.cause}, {"detail", s.detail},
                      {"count", s.count}, {"total_ns", s.total_ns}, {"max_ns", s.max_ns}});
  j["stalls_by_cause"] = std::move(causes);
  ordered_json lines = ordered_json::array();
  for (const LineStall& l : a.stalls_by_line)
    lines.push_back({{"line", l.line}, {"count", l.count}, {"total_ns", l.total_ns}, {"largest", l.top}});
  j["stalls_by_line"] = std::move(lines);
  j["lines"] = busy_rows(a.lines, "line");
  j["opcodes"] = busy_rows(a.opcodes, "opcode");
  ordered_json warnings = ordered_json::array();
  for (const ProfileWarning& w : a.warnings)
    warnings.push_back({{"kind", w.kind}, {"where", w.where}, {"count", w.count}, {"value", w.value},
                        {"message", w.message}});
  j["warnings"] = std::move(warnings);
  return j;
}

}  // namespace

void write_profile_json(std::span<const isa::Program> programs, const RunResult& r, const isa::TargetDesc& t,
                        std::ostream& os) {
  // A core_barrier's / sendrecv's wait for the other core counts as "peer core" (as in --profile).
  auto document = [&](size_t c) {
    ProfileWaitFn waited = [&, c](isa::Engine e, uint32_t i, std::string&) {
      return cross_wait(programs, r, c, e, i).has_value();
    };
    return profile_document(programs[c], r.cores[c], t, waited);
  };
  // Version 2: one shape for any core count (one core = cores[] of 1); version 1 wrote a single core flat.
  ordered_json j;
  j["schema"] = "nki-sim-profile/2";
  j["lnc"] = r.cores.size();
  j["total_ns"] = r.total_ns;
  ordered_json cores = ordered_json::array();
  for (size_t c = 0; c < programs.size() && c < r.cores.size(); ++c) cores.push_back(document(c));
  j["cores"] = std::move(cores);
  os << j.dump(2) << "\n";
}

}  // namespace nkisim::sim
