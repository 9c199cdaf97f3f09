// simulate.h - the simulator's public API: run an isa::Program on host inputs, get outputs and timing.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/check.h"
#include "sim/host_array.h"
#include "sim/huge_pages.h"

namespace nkisim::sim {

// Options::max_run_elements by default (--max-run-elements; --help and README.md list it).
constexpr uint64_t kDefaultMaxRunElements = 200'000'000'000;

struct Options {
  // Target parameters to run with; nullopt = the built-in description of program.target.
  std::optional<isa::TargetDesc> target;
  bool trace = false;        // collect trace events, flows and counters (costs nothing when false)
  bool timeline = false;     // collect Result::timeline / transfers / sem_edges (for --profile, --explain)
  bool timing_only = false;  // skip the executors: timing and stats only, no data effects, no outputs
  bool functional = false;   // numerics only: run the streams in a semaphore-respecting order, no timing
  bool parallel = true;      // programs of 64K+ instructions: validate and compile on a second thread
  // Result::outputs / written_inputs alias the run's simulated HBM (HostArray::view, kept alive by
  // HostArray::owner) instead of holding copies: no copy of large outputs (the CLI writes them from there).
  bool outputs_in_place = false;
  // Transparent huge pages for the simulated memories (sim/huge_pages.h); NKISIM_HUGEPAGES=0|auto|1 in the
  // environment overrides this. The Python package runs with Always: its memories are reused call after call
  // (MemorySpace::reuse_freed_memory), so a huge page's first touch is paid once, and HBM rows far apart share
  // TLB entries.
  HugePages huge_pages = HugePages::Off;
  // Dynamic loops: an engine that takes more branches than this stops the run with a located error at
  // the branch (an endless loop never hangs the simulator).
  uint64_t max_loop_iterations = 1000000;
  // Run-time work budget per core: each executed instruction counts the elements of its largest operand (at
  // least 1). A run over it stops with a located error (a long dynamic loop over big tiles never runs for
  // hours). The default is about a minute of simulation; nki-library's largest kernels take several 10^10.
  uint64_t max_run_elements = kDefaultMaxRunElements;
  // Where device_print instructions write (sim/exec_print.cpp); nullptr = std::cerr.
  std::ostream* print_sink = nullptr;
  // Non-empty: every device_print also writes its whole tile to DIR/NAME_N.npy (sim/exec_print.cpp).
  std::string print_dir;
  // Set to true by another thread (the Python package on Ctrl-C): the run stops soon after with
  // Error("interrupted"). Polled every 1024 instructions or events; nullptr = never.
  const std::atomic<bool>* interrupt = nullptr;
  // Progress of a run (the CLI's progress line): called every few thousand instructions or events with the
  // instructions issued so far (all cores; a dynamic loop's instructions count once per iteration) and the
  // programs' static instruction count. Empty = never.
  std::function<void(uint64_t issued, uint64_t total)> progress;
  // --check (sim/check.h, docs/checks.md): CheckBits of the checks to run (0 = none, nothing is paid); findings
  // go to Result::findings with severity "error" when check_errors, else "warning". check_names name on-chip
  // memory in findings (the kernel's tiles). A timing-only run checks nothing.
  uint8_t checks = 0;
  bool check_errors = false;
  std::vector<OnChipName> check_names;
};

struct EngineStats {
  double busy_ns = 0;
  uint64_t instructions = 0;
};

// One slice of the timeline (Chrome trace "X" event).
struct TraceEvent {
  std::string track;  // "tensor", "vector", "scalar", "gpsimd", "sync", "dma.q<Q>" (queue), "dma.e<E>" (engine)
  std::string cat;    // engine name: tensor vector scalar gpsimd sync dma
  std::string name;   // opcode mnemonic
  double start_ns = 0, dur_ns = 0;
  std::string operands;         // text of the operands
  std::string source_location;  // "file:line" or ""
  int64_t instr = -1;           // global id of the instruction (Result::instr_base), -1 unknown
};

// A point of the timing graph: an instruction (global id, see Result::instr_base) or a DMA transfer.
struct TimingRef {
  enum Kind : uint8_t { None, Instr, Transfer };
  Kind kind = None;
  uint32_t id = 0;
  bool operator==(const TimingRef&) const = default;
};

// Why an instruction started later than its engine could have issued it.
enum class StallCause : uint8_t {
  none,        // started as soon as its engine was free (pred = the previous instruction of the engine)
  semaphore,   // a semaphore wait (pred = the update that satisfied the last of them)
  dependency,  // RAW on the previous instructions of the same engine: their output was not committed yet
  weights,     // MultiplyMoving waited for its LoadStationary
  weight_buffer,  // LoadStationary waited for the background weight buffer (the previous weights' multiply)
  psum_bank,   // a Vector/Scalar PSUM access waited for the other engine's access to the same bank
};
std::string_view stall_cause_name(StallCause c);

// Timing of one instruction (Options::timeline or trace).
struct InstrTiming {
  uint8_t engine = 0;
  bool issued = false;     // false: never issued (e.g. in a loop that ran zero times); its times are 0
  uint32_t index = 0;      // position in its stream
  double ready_ns = 0;     // when its engine could have issued it
  double start_ns = 0, end_ns = 0;
  double retire_ns = 0;    // data effect and semaphore updates (DMA trigger: when its transfer completes)
  double base_ns = 0;      // the cost model's duration (before the throttling ramp)
  double throttle = 1;     // Tensor Engine throttling level applied (1 = full speed)
  StallCause cause = StallCause::none;
  TimingRef pred;          // what determined start_ns (critical path)
  uint16_t sem = 0;        // cause == semaphore: the binding wait
  uint32_t sem_value = 0;
  int32_t transfer = -1;   // DMA trigger: index into Result::transfers
};

// Timing of one DMA transfer.
struct TransferTiming {
  uint32_t instr = 0;   // global id of the trigger instruction
  uint16_t queue = 0;
  uint8_t dge = 0;      // nki.isa.dge_mode value
  double enqueue_ns = 0, eligible_ns = 0, start_ns = 0, done_ns = 0;
  double bytes = 0, hbm_read = 0, hbm_write = 0;
  uint32_t buffers = 0, engines = 0;  // buffers moved, DMA engines that moved data
  TimingRef pred;       // what determined done_ns: the trigger, or the transfer ahead on a DMA engine
};

// A Chrome-trace flow arrow (semaphore dependency) and a counter sample.
struct TraceFlow {
  std::string from_track, to_track;
  double from_ns = 0, to_ns = 0;
  std::string name;  // "s<sem> >= <value>"
};
struct TraceCounter {
  std::string name;  // "sbuf_bytes_per_partition", "psum_bytes_per_partition", "psum_banks_in_use"
  double t_ns = 0, value = 0;
};

struct Result {
  std::vector<HostArray> outputs;  // the kernel's returned tensors, in return order
  // Input tensors the kernel wrote to: (parameter name, final contents), in parameter order.
  std::vector<std::pair<std::string, HostArray>> written_inputs;
  std::string target;
  double total_ns = 0;
  uint64_t total_cycles = 0;  // total_ns in the target's profiler base clock (machine.md §3)
  // What the device would report for the launch (nki.benchmark, the profiler's total): total_ns plus the
  // runtime's preamble and teardown (kernel_launch_ns + kernel_teardown_ns); 0 without timing.
  double device_ns = 0;
  uint64_t instructions = 0;
  std::map<std::string, EngineStats> engines;  // keys: tensor vector scalar gpsimd sync dma
  std::vector<TraceEvent> trace;               // only with Options::trace
  std::vector<TraceFlow> flows;                // only with Options::trace
  std::vector<TraceCounter> counters;          // only with Options::trace

  std::string mode = "timed";  // "timed", "timing-only" or "functional"
  // DMA and memory traffic (machine.md §13 profiler summary).
  uint64_t dma_transfers = 0;
  double dma_bytes = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
  double pe_macs = 0;                 // MultiplyMoving K x M x N, FP8 x FP8 halved (profiler adjusted_flops)
  double mfu_estimated_percent = 0;   // 2 MACs / (2 x PE count x tensor clock x total time)
  double mbu_estimated_percent = 0;   // HBM bytes / total time / one stack's bandwidth
  double pe_average_throttle = 1;     // MultiplyMoving time-weighted throttling level

  // Per-instruction timing (Options::timeline or trace). Instruction (e, i) has global id instr_base[e] + i.
  std::array<uint32_t, isa::kNumEngines> instr_base{};
  std::vector<InstrTiming> timeline;
  std::vector<TransferTiming> transfers;
  std::vector<std::pair<uint32_t, TimingRef>> sem_edges;  // (waiting instruction, satisfying update)
  std::vector<Finding> findings;  // Options::checks
};

// --trace-detail: `engines` keeps a slice per DMA engine share of each transfer (tracks "dma.e<E>") besides the
// per-queue slices; `queues` keeps only the per-queue slices (a much smaller trace). `automatic` is `engines`
// unless the run has more than kTraceDmaEngineSliceLimit DMA engine slices (all cores together).
enum class TraceDetail : uint8_t { automatic, queues, engines };
inline constexpr size_t kTraceDmaEngineSliceLimit = 20000;
// Whether a trace of these cores keeps the DMA engine slices.
bool trace_keeps_dma_engines(std::span<const Result* const> cores, TraceDetail detail);

// One run of N cores (N = 1 for one core; LNC=2 is N = 2, machine.md §12, docs/lnc.md): programs[c] runs on
// physical core c; all cores run concurrently in one timeline, each with its own SBUF, PSUM, engines,
// registers, semaphores and DMA queues, sharing HBM (the programs must lay out the same HBM tensors). Inputs bind
// and outputs are read once, in the shared HBM. core_barrier / sendrecv signals cross between the cores; a
// sendrecv's transfer runs on the sending core's DMA queues. Options::functional runs the cores for their
// numerics only (sim/functional.cpp).
struct RunResult {
  std::vector<Result> cores;       // per core: timing, stats, trace, timeline (no outputs)
  std::vector<HostArray> outputs;  // the kernel's returned tensors (shared HBM)
  std::vector<std::pair<std::string, HostArray>> written_inputs;
  double total_ns = 0;             // the latest core's end
  // The cross-core signals of a timed run (core_barrier / sendrecv), in sending order: core `from` added 1 to
  // the peer's semaphore `sem` for the n-th time; it sent it at sent_ns (its instruction's stream had drained
  // and its waits held) and it arrived at arrive_ns (core_barrier_ns later). --explain reads them.
  struct Signal {
    uint32_t from = 0;
    uint16_t sem = 0;
    uint32_t n = 0;
    double sent_ns = 0, arrive_ns = 0;
  };
  std::vector<Signal> signals;
  std::vector<Finding> findings;  // Options::checks (all cores)
};
// Runs the programs. `inputs` bind in order to the programs' Input tensors (param_index order); each must match
// that tensor's dtype and shape (a timing-only run may pass none). Throws nkisim::Error (located at the kernel
// line of the instruction when a run-time hardware rule is broken, e.g. a semaphore deadlock or an out-of-range
// access).
RunResult simulate(std::span<const isa::Program> programs, std::span<const HostArray> inputs,
                   const Options& opts = {});
// One core: simulate({p}) with the run's outputs, written inputs and findings moved into the core's Result.
Result simulate(const isa::Program& p, std::span<const HostArray> inputs, const Options& opts = {});
// The reports of a run, for any number of cores (formats in README.md, docs/lnc.md, docs/profile.md).
// --stats (sim/report.cpp): one core writes its stats document {"target", "total_ns", "total_cycles",
// "instructions", "engines", "mode", "dma", "pe_macs", ...}; N > 1 cores write {"lnc", "target", "total_ns",
// "total_cycles", "cores": [each core's stats document]}.
void write_stats_json(const RunResult& r, std::ostream& os);
// --trace: one Chrome-trace process per core ("NeuronCore (<target>)" for one core, "NeuronCore <c> (<target>)"
// with pid c + 1 for several; counters named "core<c>.<name>" then) in one timeline, with a flow arrow
// (category "cross-core") from each core_barrier / sendrecv to the peer core's matching instruction its signal
// released. `programs` are the run's programs.
void write_trace_json(std::span<const isa::Program> programs, const RunResult& r, std::ostream& os,
                      TraceDetail detail = TraceDetail::automatic);
// --profile (sim/explain_run.cpp): the verdict (what bounds the end time) with its evidence and warnings
// (docs/profile.md), time per source line and per opcode, engine busy %, the critical path, the biggest stalls
// and stalls summed by cause and by source line. Needs Options::timeline. `t`: the run's target parameters (the
// peaks of the verdict's evidence); nullptr = the built-in description of the run's target. With several cores,
// one section per core headed "core C: ", where a core_barrier's / sendrecv's stall names the peer core's
// matching instruction and its signal's times.
std::string format_profile(std::span<const isa::Program> programs, const RunResult& r,
                           const isa::TargetDesc* t = nullptr);
// --explain: each instruction's cost broken down (formula, inputs, cycles, ns) with its scheduled times, each
// core's section after a newline (headed "core C: " with several cores, where a core_barrier's / sendrecv's wait
// names the peer core's matching instruction and when its signal was sent and arrived). `line` > 0 keeps the
// instructions of that kernel source line; `file` (if non-empty) must match too.
std::string format_explain(std::span<const isa::Program> programs, const RunResult& r, const isa::TargetDesc& t,
                           int line = 0, const std::string& file = "");

}  // namespace nkisim::sim
