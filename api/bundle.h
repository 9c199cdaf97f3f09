// bundle.h - a device bundle (docs/device.md): a self-contained folder holding a kernel and every module it
// imports, its inputs, nki-sim's outputs, stats, profile and binary program, a manifest with the sha256 of
// every file, and run_on_device.py, which runs the same kernel on a Trainium/Inferentia device through the
// Neuron SDK. Not a NEFF: the device program is compiled by the Neuron compiler on the device host.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "api/manifest.h"
#include "api/run.h"
#include "isa/dtype.h"

namespace nkisim::api {

struct BundleInput {
  std::string path;                 // an .npy file
  std::optional<isa::DType> dtype;  // FILE:DTYPE (as the CLI's --inputs)
};

struct BundleRequest {
  CompileRequest compile;  // the kernel, its arguments, -I folders, target, LNC, grid (as for a CLI run)
  std::vector<BundleInput> inputs;
  uint64_t max_loop_iterations = 1000000;  // sim::Options::max_loop_iterations (--max-loop-iterations)
  // The bundle folder: created, or replaced when it is empty or an earlier bundle without device results.
  std::string out_dir;
};

// Compiles and simulates the kernel (timed), then writes the bundle into a temporary folder beside out_dir
// and renames it into place (a half-written bundle is never left at out_dir). A non-empty out_dir that is
// not a bundle, or a bundle holding device_results.json, is an error (nothing is deleted). Returns the
// manifest written. Throws nkisim::Error.
Manifest write_bundle(const BundleRequest& req);

// The bundle's kernel compiled and run from the bundle alone (manifest checked first).
struct BundleRun {
  Manifest manifest;
  Compiled compiled;
  Run run;
};
// timeline: collect what --profile needs. Throws nkisim::Error located at the bundle's file at fault.
BundleRun run_bundle(const std::string& dir, bool timeline = false);

// Writes r's outputs and written inputs into out_dir as the CLI does (output_<i>.npy, input_<name>.npy) and
// compares them byte for byte with the nki-sim outputs the bundle holds; returns one line per difference.
std::vector<std::string> compare_with_bundle(const BundleRun& r, const std::string& out_dir);

// Runs the bundle's binary program (program.nkibin) with the bundle's inputs; one line per output that
// differs from the bundle's, and one if its simulated time differs from the manifest's.
std::vector<std::string> check_bundle_program(const BundleRun& r);

}  // namespace nkisim::api
