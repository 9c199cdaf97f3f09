// manifest.h - a device bundle's manifest.json (docs/device.md): what was simulated, with what, and the
// sha256 of every file in the bundle; read back with every path and hash checked.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nkisim::api {

constexpr const char* kBundleFormat = "nki-sim-bundle";
constexpr int kBundleFormatVersion = 1;

// The nki-sim version that writes bundles (the project version).
std::string nki_sim_version();

struct BundleTensor {
  std::string name;  // the kernel parameter (inputs, written inputs) or "output_<i>"
  std::string file;  // relative to the bundle folder
  std::string dtype;  // an NKI dtype name ("float32", "bfloat16", ...)
  std::vector<int64_t> shape;
};

struct Manifest {
  std::string dir;  // the bundle folder (not stored)
  std::string nki_sim_version;
  std::string kernel_file;  // the kernel source, relative to the bundle folder (under kernel/)
  std::string function;     // the kernel function
  std::vector<std::string> sources;       // every source file the front end read (relative), kernel first
  std::vector<std::string> include_dirs;  // -I folders the kernel's imports used (relative)
  std::string target = "trn2";
  int lnc = 1;
  std::vector<int64_t> grid;  // legacy SPMD launch grid (empty: one instance)
  std::vector<BundleTensor> inputs;  // in binding order; low-precision floats are stored as raw bits
  std::vector<std::pair<std::string, std::string>> arguments;  // non-tensor parameters as Python literals
  // The budgets the kernel was compiled and run with (--max-steps, ...), so a re-run is held to the same.
  uint64_t max_steps = 0, max_instructions = 0, max_loop_iterations = 0;
  int max_recursion = 0;
  std::vector<BundleTensor> outputs;         // nki-sim's returned tensors (low precision widened to float32)
  std::vector<BundleTensor> written_inputs;  // inputs the kernel wrote, as nki-sim left them
  double simulated_ns = 0;
  std::string program, stats, profile;       // the .nkibin, stats JSON and text profile (relative)
  std::map<std::string, std::string> files;  // every file but manifest.json -> its sha256
  std::string sha256;                        // of manifest.json itself (not stored; set by read_manifest)
};

// The manifest as JSON text (stable key order, so its hash is reproducible).
std::string manifest_json(const Manifest& m);

// Reads DIR/manifest.json and checks it: the format, every path relative and inside the bundle, every listed
// file present with its recorded sha256, and the kernel, inputs, outputs and program among them. Errors are
// located at the file at fault ("DIR/manifest.json: ...", "DIR/inputs/a.npy: sha256 ... does not match ...").
Manifest read_manifest(const std::string& dir);

}  // namespace nkisim::api
