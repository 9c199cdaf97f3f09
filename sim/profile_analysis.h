// profile_analysis.h - what a profile concludes from a timed run (sim/verdict.cpp, sim/profile_json.cpp;
// docs/profile.md): the verdict (what bounds the end time) with its evidence, warnings in the spirit of the
// Neuron profiler's insights, stalls summed by cause and by source line, time per line and per opcode.
#pragma once
#include <array>
#include <iosfwd>
#include <string>
#include <vector>

#include "isa/target.h"
#include "sim/explain.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// "file.py:12" (the file's base name: tables stay narrow) of instruction `i`; "?" when unknown.
std::string source_line(const isa::Program& p, const isa::Instruction& i);

// The critical path of a run with a timeline: from its first step to the instruction or transfer that ends
// last, following TimingRef preds (what determined each start). Empty without a timeline.
std::vector<TimingRef> critical_path(const Result& r);

// Busy time of one source line or opcode (DMA transfers: data start to completion).
struct BusyRow {
  std::string key;      // "file.py:12" (base name) or a mnemonic, "(dma transfer)"
  uint64_t count = 0;
  double busy_ns = 0;
  std::string engines;  // engines it ran on, space-separated, first-seen order
};

// Instructions that waited (started after their engine was ready), summed by what they waited for.
struct StallSum {
  std::string engine;  // the waiting engine
  std::string cause;   // stall_cause_name, or "peer core" for an LNC cross-core wait
  std::string on;      // what released it: an engine name, "dma" (queues listed in `detail`), "peer core"
  std::string detail;  // DMA: "queues 0 1"; semaphore waits: the binding semaphores "s5 s6"; joined by "; "
  uint64_t count = 0;
  double total_ns = 0, max_ns = 0;
};
struct LineStall {
  std::string line;  // the waiting instruction's source line
  uint64_t count = 0;
  double total_ns = 0;
  std::string top;   // its largest (engine, cause, on) by total time, as "tensor on dma (semaphore)"
};

// A finding with a stable kind: hbm-reload, small-dma-rows, exposed-dma-latency, fp32-matmul,
// psum-bank-conflict, idle-engines.
struct ProfileWarning {
  std::string kind;
  std::string where;    // source line(s) or tensor name; "" for the whole run
  std::string message;  // one sentence with the numbers and what to try
  uint64_t count = 0;   // instances (transfers, instructions, stalls, reloads); kind-specific
  double value = 0;     // the kind's headline number (docs/profile.md)
};

struct ProfileAnalysis {
  double total_ns = 0;
  // The end time split by what moved the critical path's end (sums to the path's end): a compute engine's own
  // time, DMA data movement (including waiting for a busy DMA engine), DMA fixed latency (trigger to
  // eligible: dma_fixed_ns and hardware-DGE descriptor time), and dependency gaps (semaphore / RAW hand-offs).
  std::array<double, isa::kNumEngines> path_engine_ns{};
  double path_dma_data_ns = 0, path_dma_latency_ns = 0, path_dependency_ns = 0;
  uint64_t path_steps = 0, path_transfers_latency = 0;  // transfers whose fixed latency was on the path
  std::string verdict;       // "engine-bound", "dma-bandwidth-bound", "dma-latency-bound", "dependency-bound"
  std::string bound_engine;  // engine-bound: the engine ("tensor", ...); else ""

  // Evidence.
  std::array<double, isa::kNumEngines> engine_busy_ns{}, engine_waited_ns{};
  std::array<uint64_t, isa::kNumEngines> engine_instructions{};
  double compute_idle_ns = 0;  // no Tensor/Vector/Scalar/GpSimd instruction running
  double dma_bytes = 0, dma_peak_bytes_per_ns = 0;  // peak: dma_engines x dma_engine_bytes_per_ns
  double hbm_bytes = 0, hbm_peak_bytes_per_ns = 0;  // read + write; peak: hbm_bytes_per_ns (this core's share)
  double hbm_read_bytes = 0;
  double hbm_reload_bytes = 0;                     // HBM bytes read beyond each tensor's size
  double dma_active_ns = 0;     // some DMA engine moving data (Result::engines["dma"].busy_ns)
  double dma_in_flight_ns = 0;  // some transfer between its trigger and its completion
  double dma_outstanding_avg = 0;  // sum over transfers of (done - enqueue) / total
  uint32_t dma_queues_used = 0;
  uint64_t dma_transfers = 0;
  double dma_fixed_ns = 0;

  std::vector<StallSum> stalls_by_cause;  // largest total first
  std::vector<LineStall> stalls_by_line;  // largest total first
  std::vector<BusyRow> lines, opcodes;    // largest busy first
  std::vector<ProfileWarning> warnings;

  double share(double ns) const { return total_ns > 0 ? 100.0 * ns / total_ns : 0.0; }
};

// Analyses a Result from Options::timeline (or trace) run with target `t` (the run's parameters: --param
// what-ifs change the peaks). `waited` (LNC) names cross-core waits; nullptr for one core.
ProfileAnalysis analyze_profile(const isa::Program& p, const Result& r, const isa::TargetDesc& t,
                                const ProfileWaitFn& waited = nullptr);

// The warnings of a run (sim/profile_warnings.cpp), appended to a.warnings; analyze_profile calls it after the
// verdict, stall sums and tables are in `a`.
void add_profile_warnings(const isa::Program& p, const Result& r, const isa::TargetDesc& t, ProfileAnalysis& a);

// The profile's "Verdict" section (verdict, evidence, warnings) and its "Stalls by cause / by source line"
// tables, as in --profile.
std::string format_verdict(const ProfileAnalysis& a);
std::string format_stall_sums(const ProfileAnalysis& a);

// --profile-json: the analysis as one JSON document, schema "nki-sim-profile/1" (docs/profile.md); with several
// cores {"schema", "lnc", "total_ns", "cores": [one document per core]}.
void write_profile_json(std::span<const isa::Program> programs, const RunResult& r, const isa::TargetDesc& t,
                        std::ostream& os);

}  // namespace nkisim::sim
