// nki_sim.cpp - the nki-sim command line: compile an NKI kernel, simulate it, write outputs and reports.
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "api/run.h"
#include "isa/binary.h"
#include "isa/diagnostic.h"
#include "ir/kernel.h"
#include "tools/cli_common.h"
#include "tools/nki_sim_modes.h"
#include "tools/progress.h"
#include "tools/staged_files.h"
#include "sim/npy.h"
#include "sim/simulate.h"
#include "sim/summary.h"
#include "tools/nki_sim_device.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace nkisim;

namespace {

constexpr const char* kUsage =
    "usage: nki-sim KERNEL.py [-k NAME] [--inputs FILE[:DTYPE] ...] [--arg NAME=VALUE ...] [-o DIR]\n"
    "               [--target trn1|trn2|trn3|all] [--stats FILE.json] [--trace FILE.json] [--emit ir|asm|bin FILE] [-q]\n"
    "               [--profile[=FILE]] [--profile-json FILE] [--explain[=[FILE:]LINE]] [--functional | --timing-only]\n"
    "               [--sweep NAME=V1,V2,... ...] [--sweep-format text|csv|json]\n"
"               [--check[=error,init,race,sync]] [--check-json FILE]\n"
    "       nki-sim --program FILE.nkibin [--inputs FILE[:DTYPE] ...] [-o DIR] [options]\n"
    "       nki-sim compare A B [--json] [options]   (A, B: --stats / --profile-json files, or kernels to run)\n";

// The end of --help: exit status and environment (README.md "Exit status", docs/performance.md).
constexpr const char* kHelpEpilog =
    "Budgets (exceeding one is an error naming the option that raises it): --max-steps 100000000,\n"
    "--max-instructions 2000000, --max-recursion 1000, --max-compile-memory 1073741824 (bytes of compile-time\n"
    "Python values), --max-loop-iterations 1000000 (per engine), --max-run-elements 200000000000 (per core),\n"
    "--grid at most 65536 programs, kernel source files up to 64 MiB, --program files up to 4 GiB, program HBM\n"
    "and kernel HBM tensors within the target's capacity (--param hbm_capacity_bytes: trn1 16 GiB, trn2 24 GiB,\n"
    "trn3 36 GiB).\n"
    "Device bundles (docs/device.md): nki-sim bundle KERNEL.py [options] -o DIR | bundle-run DIR |\n"
    "calibrate RESULTS... [--json]; each sub-command takes --help.\n"
    "Exit status: 0 on success, 1 for a kernel, input or run-time error, 2 for a bad command line.\n"
    "Environment: NKISIM_THREADS=N caps the threads the simulator uses (results never depend on it);\n"
    "NKISIM_HUGEPAGES=1|auto uses transparent huge pages for the simulated memories (default off).\n";

// --time-phases: wall and CPU time (all threads of the process) of each phase, printed to stderr at the end.
// The CPU figure is what to compare on a loaded machine, where wall time includes waiting for a core.
class PhaseTimer {
 public:
  explicit PhaseTimer(bool on) : on_(on), last_(now()), start_(last_) {}
  // Ends the current phase under `name` (phases of the same name add up).
  void lap(const char* name) {
    if (!on_) return;
    Stamp t = now();
    Phase d{name, t.wall - last_.wall, t.cpu - last_.cpu};
    last_ = t;
    for (auto& p : phases_)
      if (p.name == name) {
        p.wall += d.wall;
        p.cpu += d.cpu;
        return;
      }
    phases_.push_back(d);
  }
  void print(uint64_t instructions) const {
    if (!on_) return;
    std::fprintf(stderr, "nki-sim: phase    wall s    cpu s\n");
    for (auto& p : phases_) std::fprintf(stderr, "nki-sim: %-8s %8.4f %8.4f\n", p.name.c_str(), p.wall, p.cpu);
    std::fprintf(stderr, "nki-sim: %-8s %8.4f %8.4f\n", "total", last_.wall - start_.wall, last_.cpu - start_.cpu);
    for (auto& p : phases_)
      if (p.name == "simulate" && instructions)
        std::fprintf(stderr, "nki-sim: simulate: %llu instructions, %.3f us wall, %.3f us cpu per instruction\n",
                     static_cast<unsigned long long>(instructions), p.wall / double(instructions) * 1e6,
                     p.cpu / double(instructions) * 1e6);
  }

 private:
  struct Stamp {
    double wall, cpu;
  };
  struct Phase {
    std::string name;
    double wall, cpu;
  };
  static Stamp now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9};
  }
  bool on_;
  Stamp last_, start_;
  std::vector<Phase> phases_;
};

// --grid: the most kernel instances one run simulates (each is compiled and run serially).
constexpr uint64_t kMaxGridPrograms = 65536;


std::pair<std::string, std::string> split_assignment(const std::string& s, const char* what) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw cli::UsageError(std::string(what) + " expects NAME=VALUE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// The run's output files (staged: renamed into place when the whole run succeeded) and their temporary paths.
struct Outputs {
  cli::StagedFiles files;
  std::string stats, trace, emit, profile, html, profile_json, check_json;  // temporary paths ("" when not asked for)
};

// The simulator options the command line asks for (shared by the one- and two-core paths).
sim::Options sim_options(const po::variables_map& vm, const isa::TargetDesc& target, bool functional,
                         bool timing_only) {
  sim::Options o;
  o.target = target;
  o.trace = vm.count("trace") > 0 || vm.count("html") > 0;
  o.timeline = vm.count("profile") > 0 || vm.count("profile-json") > 0 || vm.count("explain") > 0;
  if (vm.count("print-dir")) o.print_dir = vm["print-dir"].as<std::string>();
  o.functional = functional;
  o.timing_only = timing_only;
  if (vm.count("max-loop-iterations")) o.max_loop_iterations = cli::count_option(vm, "max-loop-iterations");
  if (vm.count("check") || vm.count("check-json")) {  // --check (sim/check.h)
    sim::CheckSpec c;
    try {
      c = sim::parse_check_spec(vm.count("check") ? vm["check"].as<std::string>() : "all");
    } catch (const Error& e) {
      throw cli::UsageError(e.what());
    }
    if (timing_only) throw cli::UsageError("--check needs the numerics: not with --timing-only");
    o.checks = c.checks;
    o.check_errors = c.errors;
  }
  if (vm.count("max-run-elements")) o.max_run_elements = cli::count_option(vm, "max-run-elements");
  return o;
}

// sim::write_npy to a staged temporary file, its errors naming the user's path.
void write_npy_staged(const std::string& temp, const std::string& path, const sim::HostArray& a, bool raw) {
  try {
    sim::write_npy(temp, a, raw);
  } catch (const Error& e) {
    std::string msg = e.what();
    for (size_t at; (at = msg.find(temp)) != std::string::npos;) msg.replace(at, temp.size(), path);
    throw Error(msg, e.loc ? std::optional<SourceLoc>(SourceLoc{path}) : std::nullopt);
  }
}

// Writes output_<i>.npy per returned tensor and input_<name>.npy per input the kernel wrote; returns the paths.
std::vector<std::string> write_outputs(const std::string& out_dir, const std::vector<sim::HostArray>& outputs,
                                       const std::vector<std::pair<std::string, sim::HostArray>>& written_inputs,
                                       bool raw, cli::StagedFiles& staged) {
  std::error_code ec;
  std::vector<std::string> made;  // the folders this run creates (removed again if it fails)
  for (fs::path p = fs::absolute(out_dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    made.push_back(p.string());
    if (p == p.parent_path()) break;
  }
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(out_dir + ": cannot create output directory: " + ec.message());
  for (const std::string& d : made) staged.created_dir(d);
  std::vector<std::string> written;
  for (size_t i = 0; i < outputs.size(); ++i) {
    written.push_back((fs::path(out_dir) / ("output_" + std::to_string(i) + ".npy")).string());
    write_npy_staged(staged.stage(written.back(), "-o"), written.back(), outputs[i], raw);
  }
  for (auto& [name, arr] : written_inputs) {
    // A program names its tensors freely: only [A-Za-z0-9_.-] reach the file name, so a name such as
    // "/../../x" stays one file inside the output directory.
    std::string safe = name;
    for (char& c : safe)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    written.push_back((fs::path(out_dir) / ("input_" + safe + ".npy")).string());
    write_npy_staged(staged.stage(written.back(), "-o"), written.back(), arr, raw);
  }
  return written;
}

// --stats FILE / --trace FILE: writes the report to its staged file when the option was given.
template <class Writer>
void write_report(const po::variables_map& vm, const char* option, const std::string& temp, Writer&& writer) {
  if (!vm.count(option)) return;
  std::ofstream f(temp);
  writer(f);
  if (!f.flush()) throw Error(vm[option].as<std::string>() + ": cannot write file");
}

int run(int argc, char** argv);

// One nested run of this command line (a sweep point, a compare operand): `args` follow the executable.
int run_args(const std::vector<std::string>& args) {
  std::vector<std::string> all{"nki-sim"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  return run(int(argv.size()), argv.data());
}

int run(int argc, char** argv) {
  // Device bundles and calibration (tools/nki_sim_device.cpp): nki-sim bundle | bundle-run | calibrate ...
  if (const int rc = cli::run_device_command(argc, argv); rc >= 0) return rc;
  po::options_description opts("options");
  opts.add_options()
      ("help,h", "print this help and exit")
      ("kernel,k", po::value<std::string>(), "the @nki.jit function to run (default: the only one in the file)")
      ("inputs", po::value<std::vector<std::string>>()->multitoken(),
       "input .npy files, bound in order to the kernel's tensor parameters; FILE:DTYPE converts float data "
       "to DTYPE with hardware rounding or reinterprets raw data of the same width")
      ("arg", po::value<std::vector<std::string>>()->composing(),
       "NAME=VALUE for a non-tensor kernel parameter (a Python literal); repeatable")
      ("output-dir,o", po::value<std::string>()->default_value("nki-sim-out"),
       "directory for output_<i>.npy files (existing ones are replaced)")
      ("target", po::value<std::string>()->default_value("trn2"), "trn1 | trn2 | trn3 | all (a sweep over the three)")
      ("param", po::value<std::vector<std::string>>()->composing(),
       "NAME=VALUE overrides a target parameter (see docs/cost-model.md); repeatable")
      ("stats", po::value<std::string>(), "write run statistics as JSON to FILE")
      ("trace", po::value<std::string>(), "write a Chrome/Perfetto trace JSON to FILE")
      ("trace-detail", po::value<std::string>(),
       "queues|engines: --trace slices per DMA queue only, or also per DMA engine (default: engines unless the run "
       "has more than 20000 DMA engine slices)")
      ("html", po::value<std::string>(),
       "write the timeline as one self-contained HTML page to FILE (docs/html.md)")
      ("print-dir", po::value<std::string>(), "also save each device_print tile as DIR/NAME_N.npy")
      ("emit", po::value<std::vector<std::string>>()->multitoken(),
       "ir|asm|bin FILE: write the kernel IR, the assembly text or the binary program")
      ("program", po::value<std::string>(), "run a binary program (from --emit bin or nki-as) instead of a kernel")
      ("include,I", po::value<std::vector<std::string>>()->composing(), "add a directory to the kernel import search path")
      ("max-steps", po::value<std::string>(), "compile-time evaluation budget in steps (default 100000000)")
      ("max-instructions", po::value<std::string>(), "budget of nki.isa instructions a kernel may emit (default 2000000; each takes about 2 KB through compile and run)")
      ("max-loop-iterations", po::value<std::string>(), "run-time budget of taken branches per engine in dynamic loops (default 1000000)")
      ("max-run-elements", po::value<std::string>(),
       "run-time budget per core: element operations (each executed instruction counts its largest operand's "
       "elements; default 200000000000)")
      ("max-compile-memory", po::value<std::string>(),
       "compile-time memory budget: bytes of the kernel's live Python values (strings, lists, dicts, host "
       "arrays; default 1073741824)")
      ("lnc", po::value<int>(), "1|2: logical NeuronCore size (kernel[N]); 2 compiles the kernel once per core (nl.program_id(0) = 0, 1) and simulates both cores sharing HBM (trn2/trn3); default: the kernel file's kernel[N] launch, else 1")
      ("max-recursion", po::value<int>(), "depth limit of compile-time Python calls (default 1000)")
      ("grid", po::value<std::string>(),
       "N[,M...]: a legacy SPMD launch grid; the kernel runs once per program id (nl.program_id), serially on one "
       "core (with --lnc 2: on each of the two cores)")
      ("raw-low-precision", "write bfloat16/fp8/tfloat32 outputs as raw bits (unsigned ints) instead of float32")
      ("profile", po::value<std::string>()->implicit_value("-"),
       "print a profile (verdict, evidence and warnings, time per source line and opcode, engine busy %, critical "
       "path, biggest stalls, stalls by cause and line) to stdout, "
       "or write it to FILE (--profile=FILE)")
      ("profile-json", po::value<std::string>(), "write the profile's verdict, evidence, warnings and tables as JSON "
       "to FILE (docs/profile.md)")
      ("explain", po::value<std::string>()->implicit_value(""),
       "print each instruction's cost breakdown (formula, inputs, cycles, ns, schedule); --explain=LINE or "
       "--explain=FILE:LINE keeps the instructions of one kernel source line")
      ("sweep", po::value<std::vector<std::string>>()->composing(),
       "NAME=V1,V2,...: run once per value of a target parameter (--param), a kernel argument (--arg) or 'target' "
       "and print a table; repeatable (a grid); docs/profile.md")
      ("sweep-format", po::value<std::string>()->default_value("text"), "the sweep table as text, csv or json")
      ("functional", "numerics only, no timing model (fastest golden runs)")
      ("timing-only", "timing only: skip the numerics; no outputs are written")
      ("check", po::value<std::string>()->implicit_value("all"),
       "run the checks the hardware cannot give (docs/checks.md): --check (all, findings are warnings), "
       "--check=error (any finding exits 1), --check=init,race,sync to choose")
      ("check-json", po::value<std::string>(), "write the --check findings as JSON to FILE")
      ("time-phases", "print the wall time of each phase (inputs, compile, lower, simulate, outputs) to stderr")
      ("quiet,q", "print nothing on success");
  const po::variables_map vm = cli::parse(argc, argv, opts, "kernel-file");
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << opts << "\n" << kHelpEpilog;
    return 0;
  }
  if (vm.count("sweep") || vm["target"].as<std::string>() == "all")  // tools/nki_sim_modes.cpp
    return cli::run_sweep({argv + 1, argv + argc}, vm, run_args);
  const bool from_binary = vm.count("program") > 0;
  if (!vm.count("kernel-file") && !from_binary) throw cli::UsageError("no kernel file given");
  if (vm.count("kernel-file") && from_binary) throw cli::UsageError("give either a kernel file or --program, not both");
  const std::string kernel_path = from_binary ? vm["program"].as<std::string>() : vm["kernel-file"].as<std::string>();
  const bool quiet = vm.count("quiet") > 0;
  PhaseTimer phases(vm.count("time-phases") > 0);

  std::optional<isa::TargetDesc> target = isa::find_target(vm["target"].as<std::string>());
  if (!target) throw cli::UsageError("unknown target '" + vm["target"].as<std::string>() + "' (expected trn1, trn2 or trn3)");
  std::vector<std::pair<std::string, double>> params;
  if (vm.count("param"))
    for (auto& s : vm["param"].as<std::vector<std::string>>()) {
      auto [name, value] = split_assignment(s, "--param");
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') throw cli::UsageError("--param " + name + ": '" + value + "' is not a number");
      bool known = false;
      try {
        known = isa::set_target_param(*target, name, v);
      } catch (const Error& e) {
        throw cli::UsageError("--param " + s + ": " + e.what());
      }
      if (!known) throw cli::UsageError("--param: unknown target parameter '" + name + "'");
      params.push_back({name, v});
    }
  const bool functional = vm.count("functional") > 0, timing_only = vm.count("timing-only") > 0;
  if (functional && timing_only) throw cli::UsageError("--functional and --timing-only exclude each other");
  if (functional && (vm.count("trace") || vm.count("profile") || vm.count("profile-json") || vm.count("html")))
    throw cli::UsageError("--functional has no timing: --trace, --html, --profile and --profile-json need a timed run");
  sim::TraceDetail trace_detail = sim::TraceDetail::automatic;
  if (vm.count("trace-detail")) {
    const std::string d = vm["trace-detail"].as<std::string>();
    if (d == "queues") trace_detail = sim::TraceDetail::queues;
    else if (d == "engines") trace_detail = sim::TraceDetail::engines;
    else throw cli::UsageError("--trace-detail expects 'queues' or 'engines', got '" + d + "'");
  }
  int explain_line = 0;
  std::string explain_file;
  if (vm.count("explain")) {
    std::string spec = vm["explain"].as<std::string>();
    if (!spec.empty()) {
      size_t colon = spec.rfind(':');
      std::string num = colon == std::string::npos ? spec : spec.substr(colon + 1);
      if (colon != std::string::npos) explain_file = spec.substr(0, colon);
      char* end = nullptr;
      errno = 0;
      long v = std::strtol(num.c_str(), &end, 10);
      if (num.empty() || *end != '\0' || v <= 0 || errno == ERANGE || v > std::numeric_limits<int>::max())
        throw cli::UsageError("--explain expects LINE or FILE:LINE (a positive line number), got '" + spec + "'");
      explain_line = int(v);
    }
  }
  std::string emit_kind, emit_file;
  if (vm.count("emit")) {
    auto e = vm["emit"].as<std::vector<std::string>>();
    if (e.size() != 2 || (e[0] != "ir" && e[0] != "asm" && e[0] != "bin"))
      throw cli::UsageError("--emit expects 'ir FILE', 'asm FILE' or 'bin FILE'");
    if (from_binary && e[0] == "ir") throw cli::UsageError("--emit ir needs a kernel file, not --program");
    emit_kind = e[0];
    emit_file = e[1];
  }

  // Every output is staged (docs/hardening.md "Output files"); none may be an input file.
  Outputs out;
  out.files.add_input(kernel_path);
  if (vm.count("inputs"))
    for (auto& spec : vm["inputs"].as<std::vector<std::string>>()) {
      out.files.add_input(spec);  // FILE, or FILE:DTYPE (checked below; either spelling names the input)
      if (size_t colon = spec.rfind(':'); colon != std::string::npos) out.files.add_input(spec.substr(0, colon));
    }
  if (vm.count("stats")) out.stats = out.files.stage(vm["stats"].as<std::string>(), "--stats");
  if (vm.count("trace")) out.trace = out.files.stage(vm["trace"].as<std::string>(), "--trace");
  if (!emit_file.empty()) out.emit = out.files.stage(emit_file, "--emit");
  if (vm.count("profile") && vm["profile"].as<std::string>() != "-")
    out.profile = out.files.stage(vm["profile"].as<std::string>(), "--profile");
  if (vm.count("html")) out.html = out.files.stage(vm["html"].as<std::string>(), "--html");
  if (vm.count("profile-json")) out.profile_json = out.files.stage(vm["profile-json"].as<std::string>(), "--profile-json");
  if (vm.count("check-json")) out.check_json = out.files.stage(vm["check-json"].as<std::string>(), "--check-json");

  // Inputs: FILE or FILE:DTYPE (the suffix after the last ':' when it names a dtype).
  frontend::CompileOptions copts;
  copts.target = target->name;
  copts.target_from_kernel = vm["target"].defaulted();
  if (vm.count("kernel")) copts.kernel_name = vm["kernel"].as<std::string>();
  if (vm.count("arg"))
    for (auto& s : vm["arg"].as<std::vector<std::string>>()) copts.args.push_back(split_assignment(s, "--arg"));
  if (vm.count("include")) copts.include_dirs = vm["include"].as<std::vector<std::string>>();
  if (vm.count("max-steps")) copts.max_steps = cli::count_option(vm, "max-steps");
  if (vm.count("max-instructions")) copts.max_instructions = cli::count_option(vm, "max-instructions");
  if (vm.count("max-loop-iterations")) cli::count_option(vm, "max-loop-iterations");  // checked before any work
  if (vm.count("max-run-elements")) cli::count_option(vm, "max-run-elements");
  if (vm.count("max-compile-memory")) copts.max_compile_memory = cli::count_option(vm, "max-compile-memory");
  if (vm.count("grid")) {
    std::stringstream ss(vm["grid"].as<std::string>());
    std::string item;
    while (std::getline(ss, item, ',')) {
      char* end = nullptr;
      long long n = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || n < 1 || n > 65536)
        throw cli::UsageError("--grid expects positive integers separated by commas (e.g. 4 or 2,3), got '" +
                              vm["grid"].as<std::string>() + "'");
      copts.grid.push_back(n);
    }
    if (copts.grid.empty() || copts.grid.size() > 4)
      throw cli::UsageError("--grid expects 1 to 4 dimensions, got '" + vm["grid"].as<std::string>() + "'");
    uint64_t programs = 1;  // saturates: 65536^4 would wrap to 0
    for (int64_t n : copts.grid) programs = std::min<uint64_t>(programs * uint64_t(n), kMaxGridPrograms + 1);
    if (programs > kMaxGridPrograms)
      throw cli::UsageError("--grid " + vm["grid"].as<std::string>() + " launches more than " + std::to_string(kMaxGridPrograms) +
                            " programs (the most one run simulates)");
  }
  if (vm.count("max-recursion")) {
    copts.max_recursion = vm["max-recursion"].as<int>();
    if (copts.max_recursion < 1) throw cli::UsageError("--max-recursion must be at least 1");
  }
  std::vector<sim::HostArray> inputs;
  if (vm.count("inputs"))
    for (auto& spec : vm["inputs"].as<std::vector<std::string>>()) {
      std::string path = spec;
      std::optional<isa::DType> dtype;
      size_t colon = spec.rfind(':');
      if (colon != std::string::npos && spec.find('/', colon) == std::string::npos) {
        std::string suffix = spec.substr(colon + 1);
        dtype = isa::parse_dtype(suffix);
        if (!dtype) throw cli::UsageError("--inputs " + spec + ": unknown dtype '" + suffix + "'");
        path = spec.substr(0, colon);
      }
      // Only the header now: the data is read when the simulator binds the input, straight into simulated HBM.
      const sim::NpyHandle f = sim::open_npy(path);
      try {
        inputs.push_back(sim::to_host_array(f, dtype));
      } catch (const Error& e) {
        throw Error(path + ": " + e.what());
      }
      if (!from_binary && inputs.back().shape.size() > ir::kMaxViewDims)
        throw Error(path + ": a " + std::to_string(inputs.back().shape.size()) + "-d array; a kernel tensor has at most " +
                    std::to_string(ir::kMaxViewDims) + " dimensions");
      copts.inputs.push_back({inputs.back().dtype, inputs.back().shape});
    }
  phases.lap("inputs");

  int lnc = vm.count("lnc") ? vm["lnc"].as<int>() : 1;
  cli::check_lnc_option(*target, lnc);
  // The policy (compile or decode, the target, the cores, the simulation) lives in api::compile_and_run.
  api::RunRequest req;
  req.compile = api::CompileRequest{kernel_path, copts, *target, params, std::nullopt, emit_kind == "ir"};
  if (!from_binary && (vm.count("lnc") || vm.count("grid"))) req.compile.lnc = lnc;
  if (from_binary) req.program = cli::read_file(kernel_path);
  req.target_given = !vm["target"].defaulted();
  req.inputs = std::move(inputs);
  req.options = sim_options(vm, *target, functional, timing_only);
  req.options.outputs_in_place = true;  // outputs are written straight from simulated HBM
  cli::Progress progress;  // stderr, terminals only
  req.options.progress = progress.callback();
  req.before_run = [&](const api::Compiled& compiled) {
    // A binary program file holds one core or, for LNC=2, one program per core (docs/binary-format.md).
    const int cores = compiled.lnc();
    if (from_binary && vm.count("lnc") && lnc != cores)
      throw cli::UsageError("--lnc " + std::to_string(lnc) + ": " + kernel_path + " holds " +
                            (cores == 1 ? std::string("a single-core program")
                                        : "an LNC=" + std::to_string(cores) + " program (one per core)"));
    for (const std::string& n : compiled.notes) std::cerr << n << "\n";
    phases.lap(from_binary ? "decode" : "compile");
    if (emit_kind == "ir") cli::write_file(out.emit, compiled.ir_text, emit_file);
    if (emit_kind == "asm") cli::write_file(out.emit, isa::print_asm_cores(compiled.programs), emit_file);
    if (emit_kind == "bin") {
      const std::vector<uint8_t> bytes = isa::encode_programs(compiled.programs);
      cli::write_file(out.emit, std::string(bytes.begin(), bytes.end()), emit_file);
    }
    if (!emit_kind.empty()) phases.lap("emit");
  };
  const bool check_errors = req.options.check_errors;
  const api::Outcome outcome = [&] {
    try {
      return api::compile_and_run(std::move(req));
    } catch (...) {
      progress.clear();
      throw;
    }
  }();
  const api::Run& r = outcome.run;
  const std::vector<isa::Program>& programs = outcome.compiled.programs;
  target = outcome.compiled.target;
  progress.clear();
  phases.lap("simulate");

  const std::vector<std::string> written =
      write_outputs(vm["output-dir"].as<std::string>(), r.outputs(), r.written_inputs(),
                    vm.count("raw-low-precision") > 0, out.files);
  write_report(vm, "stats", out.stats, [&](std::ostream& f) { r.write_stats_json(f); });
  write_report(vm, "trace", out.trace, [&](std::ostream& f) { r.write_trace_json(programs, f, trace_detail); });
  write_report(vm, "html", out.html, [&](std::ostream& f) {
    r.write_html(programs, *target, fs::path(kernel_path).filename().string(), !from_binary, f);
  });
  write_report(vm, "profile-json", out.profile_json,
               [&](std::ostream& f) { r.write_profile_json(programs, *target, f); });
  write_report(vm, "check-json", out.check_json, [&](std::ostream& f) { sim::write_findings_json(r.findings(), f); });
  // --profile / --explain: with two cores one section per physical core, headed "core C: ".
  const std::string profile = vm.count("profile") ? r.profile(programs, &*target) : "";
  if (!out.profile.empty()) cli::write_file(out.profile, profile, vm["profile"].as<std::string>());
  const std::string explain = vm.count("explain") ? r.explain(programs, *target, explain_line, explain_file) : "";
  out.files.commit();  // the whole run succeeded: every output goes into place
  if (!quiet) std::cout << r.summary(programs, written);
  if (vm.count("profile") && out.profile.empty()) std::cout << "\n" << profile;
  std::cout << explain;
  phases.lap("outputs");
  phases.print(r.instructions());
  // --check: findings like compiler diagnostics on stderr, all of them as JSON with --check-json.
  std::cerr << sim::format_findings(r.findings(), read_registered_source_line);
  if (check_errors && !r.findings().empty()) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cli::ignore_file_size_signal();
  if (argc > 1 && std::string_view(argv[1]) == "compare")
    return cli::tool_main("nki-sim", kUsage, [&] { return cli::run_compare({argv + 2, argv + argc}, run_args); });
  return cli::tool_main("nki-sim", kUsage, [&] { return run(argc, argv); });
}
