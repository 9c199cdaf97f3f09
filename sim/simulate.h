// simulate.h - the simulator's public API: run an isa::Program on host inputs, get outputs and timing.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/host_array.h"

namespace nkisim::sim {

struct Options {
  // Target parameters to run with; nullopt = the built-in description of program.target.
  std::optional<isa::TargetDesc> target;
  bool trace = false;  // collect trace events (costs nothing when false)
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
};

struct Result {
  std::vector<HostArray> outputs;  // the kernel's returned tensors, in return order
  // Input tensors the kernel wrote to: (parameter name, final contents), in parameter order.
  std::vector<std::pair<std::string, HostArray>> written_inputs;
  std::string target;
  double total_ns = 0;
  uint64_t total_cycles = 0;  // total_ns in the target's profiler base clock (machine.md §3)
  uint64_t instructions = 0;
  std::map<std::string, EngineStats> engines;  // keys: tensor vector scalar gpsimd sync dma
  std::vector<TraceEvent> trace;               // only with Options::trace
};

// Runs `p`. `inputs` bind in order to the program's Input tensors (param_index order); each must match
// that tensor's dtype and shape. Throws nkisim::Error (located at the kernel line of the instruction when
// a run-time hardware rule is broken, e.g. a semaphore deadlock or an out-of-range access).
Result simulate(const isa::Program& p, std::span<const HostArray> inputs, const Options& opts = {});

// JSON writers for the CLI's --stats and --trace (formats in docs/cli.md).
void write_stats_json(const Result& r, std::ostream& os);
void write_trace_json(const Result& r, std::ostream& os);

}  // namespace nkisim::sim
