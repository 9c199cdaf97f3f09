// run.h - the public API that the command line and the Python package share (DESIGN.md item 8): compile a kernel
// file for one or two cores with the CLI's LNC policy, simulate the programs, report; compile_and_run does all.
#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frontend/compile.h"
#include "ir/lower.h"
#include "isa/program.h"
#include "isa/target.h"
#include "sim/simulate.h"

namespace nkisim::api {

struct CompileRequest {
  std::string kernel_path;
  frontend::CompileOptions copts;  // copts.target, lnc and lnc_core are set from the fields below
  isa::TargetDesc target;
  // Target parameter overrides (--param): applied to `target` by the caller, and again to the target the kernel
  // picks for itself (a front end that honours a decorator's platform_target= sets ir::Kernel::target).
  std::vector<std::pair<std::string, double>> params;
  // The logical core size; nullopt: the kernel file's kernel[N] launch decides (1 when copts.grid is given).
  std::optional<int> lnc;
  bool want_ir = false;  // keep the Kernel IR text (one "# core C" section per core when LNC > 1)
  ir::SemaphorePath semaphore_path = ir::SemaphorePath::automatic;  // ir::lower's (tests compare the two paths)
};

struct Compiled {
  std::vector<isa::Program> programs;  // one per physical core of the logical core
  isa::TargetDesc target;              // what the programs were lowered for (simulate with it)
  std::string ir_text;                 // CompileRequest::want_ir
  std::vector<std::string> notes;      // one line per tensor spilled to HBM (docs/spill.md); callers print them
  // What the front end read and ran (api/bundle.h): every Python source file any core's compile loaded (the
  // kernel file first), the kernel function's name, its tensor parameters' names in binding order, and the
  // legacy launch grid it ran over (empty: one instance).
  std::vector<std::string> source_files;
  std::string kernel_name;
  std::vector<std::string> tensor_params;
  std::vector<int64_t> launch_grid;
  std::vector<sim::OnChipName> check_names;  // core 0's on-chip tensors, for sim::Options::check_names (--check)
  int lnc() const { return int(programs.size()); }
};

// The front end and the back end: LNC=N compiles the kernel once per core (nl.program_id(0) = core).
// Throws nkisim::Error (located in the kernel) for kernel errors and an LNC the target does not have.
Compiled compile_kernel(CompileRequest req);

// One run of one or more cores (sim::RunResult) and its reports.
struct Run {
  sim::RunResult result;

  const std::vector<sim::HostArray>& outputs() const { return result.outputs; }
  const std::vector<std::pair<std::string, sim::HostArray>>& written_inputs() const { return result.written_inputs; }
  double total_ns() const { return result.total_ns; }
  // --check findings (sim::Options::checks), all cores.
  const std::vector<sim::Finding>& findings() const { return result.findings; }
  uint64_t instructions() const;
  // Busy time per engine ("tensor", "vector", ...); with two cores "core0.tensor", "core1.tensor", ...
  std::map<std::string, double> engine_busy_ns() const;
  void write_stats_json(std::ostream& os) const;  // the CLI's --stats
  void write_trace_json(std::span<const isa::Program> programs, std::ostream& os,
                        sim::TraceDetail detail = sim::TraceDetail::automatic) const;  // --trace
  // --html (api/html.cpp, sim/html_timeline.h): the self-contained timeline page; needs Options::trace. With
  // `read_sources` the source text of each instruction's line is read from the kernel files its locations name.
  void write_html(std::span<const isa::Program> programs, const isa::TargetDesc& t, const std::string& title,
                  bool read_sources, std::ostream& os) const;
  // --profile (needs Options::timeline); `t`: the run's target parameters (nullptr: the built-in target).
  std::string profile(std::span<const isa::Program> programs, const isa::TargetDesc* t = nullptr) const;
  // --profile-json (docs/profile.md; needs Options::timeline).
  void write_profile_json(std::span<const isa::Program> programs, const isa::TargetDesc& t, std::ostream& os) const;
  std::string explain(std::span<const isa::Program> programs, const isa::TargetDesc& t, int line = 0,
                      const std::string& file = "") const;  // --explain (needs Options::timeline)
  // The CLI's summary lines (one section per core), `written` listed after the last core.
  std::string summary(std::span<const isa::Program> programs, const std::vector<std::string>& written) const;
};

// sim::simulate of the programs (one per core).
Run simulate(std::span<const isa::Program> programs, std::span<const sim::HostArray> inputs,
             const sim::Options& opts);

// One run as the command line and the Python package make it (DESIGN.md item 8): every policy between parsing
// options and writing files lives here (api/compile_and_run.cpp).
struct RunRequest {
  // A kernel file to compile (`compile`, whose kernel_path, target and params are used; compile.lnc nullopt:
  // the kernel file's kernel[N] launch decides), or with `program` a binary program file (one program per core,
  // docs/binary-format.md) that runs on the target it was compiled for unless `target_given`.
  CompileRequest compile;
  std::optional<std::vector<uint8_t>> program;  // the program file's bytes (kernel_path names the file)
  bool target_given = true;
  std::vector<sim::HostArray> inputs;
  // The simulator options; compile_and_run sets target (the one the programs were made for, with the --param
  // overrides) and, for --check, the kernel's on-chip names.
  sim::Options options;
  // Called with the programs after compile / decode and before the simulation (the CLI prints the spill notes,
  // checks --lnc against a program file and writes --emit files there); errors from it stop the run.
  std::function<void(const Compiled&)> before_run;
};

struct Outcome {
  Compiled compiled;  // the programs that ran, their target, and the compile's IR text, notes and names
  Run run;
};

// Simulates compiled programs on their target (with the kernel's on-chip names for --check): the second half of
// compile_and_run, for a caller that keeps a compiled kernel (the Python package).
Run run_compiled(const Compiled& c, std::span<const sim::HostArray> inputs, sim::Options options);

// Compiles the kernel file (api::compile_kernel's LNC policy) or decodes the program file (checking that it fits
// its target and that the target has that many cores), then simulates the programs. A run-time error of a program
// without source locations is located at the program file and names the instruction
// (`prog.nkibin: error: vector instruction 3 (memset): ...`). Throws nkisim::Error.
Outcome compile_and_run(RunRequest req);

}  // namespace nkisim::api
