// compile.h - the front end's public API: a kernel source file -> Kernel IR -> isa::Program.
#pragma once
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "frontend/host_value.h"
#include "ir/kernel.h"
#include "isa/program.h"
#include "isa/target.h"

namespace nkisim::frontend {

struct TensorArgSpec {  // what an input tensor looks like (the kernel is specialised on it)
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;
};

// A kernel source file larger than this is refused (a runaway or device file, not a kernel).
constexpr uint64_t kMaxSourceBytes = uint64_t(64) << 20;

struct CompileOptions {
  std::string kernel_name;            // -k; empty = the only @nki.jit function in the file
  std::string target = "trn2";        // trn1 | trn2 | trn3
  // The target was not chosen on the command line: a kernel decorated with platform_target= is compiled for
  // that target instead (ir::Kernel::target says which one was used).
  bool target_from_kernel = false;
  std::vector<TensorArgSpec> inputs;  // bound in order to the kernel's tensor parameters
  // --arg NAME=VALUE: VALUE is a Python literal (int, float, bool, None, string, tuple/list of those).
  std::vector<std::pair<std::string, std::string>> args;
  std::vector<std::string> include_dirs;  // -I search paths for the kernel's own imports
  // Packages the host imported that the kernel's module imports (the Python package passes their __path__ /
  // __file__): importable by their top-level name only (InterpOptions::import_packages).
  std::vector<std::string> import_packages;
  // .npy files named by strings in a Python call's arguments that the host has read (the host made them, e.g.
  // nki-library's rotational top-k constants): np.load / nl.shared_constant of that name read this copy as if
  // np.save had written it. The CLI passes none: kernel code never reads host files.
  struct HostFile {
    std::string name, dtype;  // dtype: an NKI dtype name, or numpy's "float64" / "int64"
    std::vector<int64_t> shape;
    std::vector<double> data;  // row-major values
  };
  std::vector<HostFile> host_files;
  // Compile-time limits (each is a located error when exceeded):
  uint64_t max_steps = 100'000'000;        // --max-steps N: evaluation steps (statements, iterations, calls)
  uint64_t max_instructions = 2'000'000;   // --max-instructions N: nki.isa instructions emitted
  int max_recursion = 1000;                // --max-recursion N: Python call depth
  uint64_t max_compile_memory = uint64_t(1) << 30;  // --max-compile-memory N: bytes of live compile-time values
  // --param hbm_capacity_bytes=N: the HBM a kernel's tensors may take (0: the target's figure); an HBM tensor
  // over it is a located error at its nl.ndarray.
  double hbm_capacity_bytes = 0;
  // --grid N[,M...]: a legacy SPMD launch grid; the kernel runs once per program id (row-major order),
  // serially on one core, sharing its shared_hbm tensors. Empty: one instance.
  std::vector<int64_t> grid;
  // --lnc N (kernel[N]): the kernel is compiled once per physical core of the logical core; this compile is
  // for core `lnc_core` (nl.program_id(0)) of `lnc` (nl.num_programs()). lnc = 0: the kernel file decides -
  // an nki.jit kernel launched as `kernel[2]` (or `kernel[nl.nc(2)]`) in the file is LNC=2, else LNC=1.
  int lnc = 1, lnc_core = 0;
  // A call from the Python package (python/nkisim): every argument comes from host_args, named by parameter
  // (parameters not named keep their defaults); tensors are HostValue::Tensor nodes indexing `inputs`. The
  // file's own launches (kernel[grid] / kernel[2]) are ignored: `grid` and `lnc` say it all.
  bool host_call = false;
  std::vector<std::pair<std::string, HostValue>> host_args;
  std::string module_name;  // the kernel file's dotted module name (package-relative imports); "" = its stem
  const std::atomic<bool>* interrupt = nullptr;  // set from another thread: Error("interrupted") soon after
  enum class Api : uint8_t { from_decorator, current, legacy };
  Api api = Api::from_decorator;  // the host decorator's API (nki.jit / neuronxcc.nki.jit) when it is known
};

// Parses and evaluates the kernel's meta-program. Tensor parameters are the kernel parameters that have
// no default and no --arg value, in signature order. Throws nkisim::Error located in the source.
// `launched_lnc` (if given) receives the logical core size the kernel was compiled for (opts.lnc, or the
// file's choice when opts.lnc is 0).
ir::Kernel compile_to_ir(const std::string& path, const CompileOptions& opts, int* launched_lnc = nullptr);

// The namespaces built into the front end (nki, nki.language, nki.isa, neuronxcc.nki.*, numpy, ...; namespaces
// inside them such as nki.language.tile_size as "nki.language.tile_size"), for `target`: for each, its public
// names and what each is: 'm' namespace, 'c' class, 'f' function, 'i' / 'x' an int / float constant (`number`),
// 'v' another value (dtype, buffer, op, enum member). The Python package's host stand-ins mirror them.
struct BuiltinName {
  std::string name;
  char kind;
  double number = 0;
};
std::vector<std::pair<std::string, std::vector<BuiltinName>>> builtin_namespaces(const isa::TargetDesc& target);

// compile_to_ir, then the back end (ir::lower) for the target.
isa::Program compile(const std::string& path, const CompileOptions& opts, const isa::TargetDesc& target);

}  // namespace nkisim::frontend
