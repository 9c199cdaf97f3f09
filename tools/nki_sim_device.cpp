// nki_sim_device.cpp - the device commands of nki-sim (docs/device.md): `bundle` writes a device bundle,
// `bundle-run` re-runs one from the bundle alone, `calibrate` compares device results with the model. Thin:
// options here, the work in api/bundle.h and api/calibrate.h.
#include "tools/nki_sim_device.h"

#include <cstring>
#include <iostream>
#include <sstream>

#include "api/bundle.h"
#include "api/calibrate.h"
#include "isa/target.h"
#include "tools/cli_common.h"

namespace nkisim::cli {

namespace {

constexpr const char* kBundleUsage =
    "usage: nki-sim bundle KERNEL.py [-k NAME] [--inputs FILE[:DTYPE] ...] [--arg NAME=VALUE ...] [-I DIR ...]\n"
    "                      [--target trn1|trn2|trn3] [--lnc 1|2] [--grid N[,M...]] [--max-steps N]\n"
    "                      [--max-instructions N] [--max-recursion N] [--max-loop-iterations N] -o DIR [-q]\n";
constexpr const char* kBundleRunUsage = "usage: nki-sim bundle-run DIR [-o OUT] [-q]\n";
constexpr const char* kCalibrateUsage = "usage: nki-sim calibrate RESULTS... [--json]\n";

std::pair<std::string, std::string> assignment(const std::string& s, const char* what) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(std::string(what) + " expects NAME=VALUE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// FILE or FILE:DTYPE, as the main command's --inputs.
api::BundleInput input_spec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || spec.find('/', colon) != std::string::npos) return {spec, std::nullopt};
  std::optional<isa::DType> dtype = isa::parse_dtype(spec.substr(colon + 1));
  if (!dtype) throw UsageError("--inputs " + spec + ": unknown dtype '" + spec.substr(colon + 1) + "'");
  return {spec.substr(0, colon), dtype};
}

std::vector<int64_t> grid_spec(const std::string& text) {
  std::vector<int64_t> grid;
  std::stringstream ss(text);
  std::string item;
  uint64_t programs = 1;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long long n = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 65536)
      throw UsageError("--grid expects positive integers separated by commas (e.g. 4 or 2,3), got '" + text + "'");
    grid.push_back(n);
    programs = std::min<uint64_t>(programs * uint64_t(n), 65537);
  }
  if (grid.empty() || grid.size() > 4 || programs > 65536)
    throw UsageError("--grid expects 1 to 4 dimensions launching at most 65536 programs, got '" + text + "'");
  return grid;
}

int bundle(int argc, char** argv) {
  po::options_description opts("bundle options");
  opts.add_options()("help,h", "print this help and exit")(
      "kernel,k", po::value<std::string>(), "the @nki.jit function (default: the only one in the file)")(
      "inputs", po::value<std::vector<std::string>>()->multitoken(), "input .npy files (FILE[:DTYPE])")(
      "arg", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE for a non-tensor parameter")(
      "include,I", po::value<std::vector<std::string>>()->composing(), "a folder of the kernel's imports")(
      "target", po::value<std::string>()->default_value("trn2"), "trn1 | trn2 | trn3")(
      "lnc", po::value<int>(), "1|2: logical NeuronCore size (default: the kernel file's launch, else 1)")(
      "grid", po::value<std::string>(), "N[,M...]: a legacy SPMD launch grid")(
      "output-dir,o", po::value<std::string>(), "the bundle folder to write (required)")(
      "max-steps", po::value<std::string>(), "compile-time evaluation budget in steps (default 100000000)")(
      "max-instructions", po::value<std::string>(), "budget of instructions a kernel may emit (default 5000000)")(
      "max-recursion", po::value<std::string>(), "depth limit of compile-time Python calls (default 1000)")(
      "max-loop-iterations", po::value<std::string>(), "taken branches per engine in dynamic loops (default 1000000)")(
      "quiet,q", "print nothing on success");
  const po::variables_map vm = parse(argc, argv, opts, "kernel-file");
  if (vm.count("help")) {
    std::cout << kBundleUsage << "\n" << opts << "\n";
    return 0;
  }
  if (!vm.count("kernel-file")) throw UsageError("no kernel file given");
  if (!vm.count("output-dir")) throw UsageError("-o DIR (the bundle folder) is required");
  std::optional<isa::TargetDesc> target = isa::find_target(vm["target"].as<std::string>());
  if (!target) throw UsageError("unknown target '" + vm["target"].as<std::string>() + "' (expected trn1, trn2 or trn3)");
  api::BundleRequest req;
  req.compile.kernel_path = vm["kernel-file"].as<std::string>();
  req.compile.target = *target;
  req.compile.copts.target_from_kernel = vm["target"].defaulted();
  if (vm.count("kernel")) req.compile.copts.kernel_name = vm["kernel"].as<std::string>();
  if (vm.count("arg"))
    for (auto& s : vm["arg"].as<std::vector<std::string>>()) req.compile.copts.args.push_back(assignment(s, "--arg"));
  if (vm.count("include")) req.compile.copts.include_dirs = vm["include"].as<std::vector<std::string>>();
  if (vm.count("grid")) req.compile.copts.grid = grid_spec(vm["grid"].as<std::string>());
  if (vm.count("lnc")) {
    const int lnc = vm["lnc"].as<int>();
    check_lnc_option(*target, lnc);
    req.compile.lnc = lnc;
  } else if (vm.count("grid")) {
    req.compile.lnc = 1;
  }
  // Budgets, as the main command's, recorded in the manifest so a re-run is held to the same.
  auto& copts = req.compile.copts;
  if (vm.count("max-steps")) copts.max_steps = count_option(vm, "max-steps");
  if (vm.count("max-instructions")) copts.max_instructions = count_option(vm, "max-instructions");
  if (vm.count("max-recursion")) copts.max_recursion = int(count_option(vm, "max-recursion", uint64_t(INT32_MAX)));
  if (vm.count("max-loop-iterations")) req.max_loop_iterations = count_option(vm, "max-loop-iterations");
  if (vm.count("inputs"))
    for (auto& s : vm["inputs"].as<std::vector<std::string>>()) req.inputs.push_back(input_spec(s));
  req.out_dir = vm["output-dir"].as<std::string>();
  const api::Manifest m = api::write_bundle(req);
  if (!vm.count("quiet"))
    std::cout << "bundle " << req.out_dir << ": kernel " << m.function << " (" << m.kernel_file << "), "
              << m.files.size() + 1 << " files, " << m.target << (m.lnc > 1 ? " LNC=2" : "") << ", simulated "
              << m.simulated_ns / 1000.0 << " us\n"
              << "on a Neuron device: python3 " << req.out_dir << "/run_on_device.py\n";
  return 0;
}

int bundle_run(int argc, char** argv) {
  po::options_description opts("bundle-run options");
  opts.add_options()("help,h", "print this help and exit")(
      "output-dir,o", po::value<std::string>()->default_value("nki-sim-out"),
      "where the re-run's output_<i>.npy files go (existing ones are replaced)")("quiet,q", "print nothing on success");
  const po::variables_map vm = parse(argc, argv, opts, "bundle-dir");
  if (vm.count("help")) {
    std::cout << kBundleRunUsage << "\n" << opts << "\n";
    return 0;
  }
  if (!vm.count("bundle-dir")) throw UsageError("no bundle folder given");
  const std::string dir = vm["bundle-dir"].as<std::string>();
  const api::BundleRun r = api::run_bundle(dir);
  std::vector<std::string> diffs = api::compare_with_bundle(r, vm["output-dir"].as<std::string>());
  if (r.run.total_ns() != r.manifest.simulated_ns)
    diffs.push_back("simulated " + std::to_string(r.run.total_ns()) + " ns, the bundle records " +
                    std::to_string(r.manifest.simulated_ns) + " ns (the cost model changed since it was made)");
  for (const std::string& d : api::check_bundle_program(r)) diffs.push_back(d);
  if (!diffs.empty()) {
    for (const std::string& d : diffs) std::cerr << "nki-sim bundle-run: error: " << d << "\n";
    return 1;
  }
  if (!vm.count("quiet")) {
    const size_t n = r.manifest.outputs.size() + r.manifest.written_inputs.size();
    std::cout << "bundle " << dir << ": kernel " << r.manifest.function << ": outputs identical to the bundle's ("
              << n << (n == 1 ? " file" : " files") << ", and with " << r.manifest.program << "), simulated "
              << r.run.total_ns() / 1000.0 << " us\n";
  }
  return 0;
}

int calibrate(int argc, char** argv) {
  po::options_description opts("calibrate options");
  opts.add_options()("help,h", "print this help and exit")("json", "print the table as JSON");
  const po::variables_map vm = parse(argc, argv, opts, "results", /*many=*/true);
  if (vm.count("help")) {
    std::cout << kCalibrateUsage << "\n" << opts << "\n";
    return 0;
  }
  if (!vm.count("results")) throw UsageError("no device_results.json given");
  const api::Calibration c = api::calibrate(vm["results"].as<std::vector<std::string>>());
  std::cout << (vm.count("json") ? api::calibration_json(c) : api::format_calibration(c));
  return 0;
}

}  // namespace

int run_device_command(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string cmd = argv[1];
  // The sub-command's own argv: its name takes the place of the program name.
  // Messages name the sub-command ("nki-sim bundle: error: ...", "Try 'nki-sim bundle --help'").
  if (cmd == "bundle") return tool_main("nki-sim bundle", kBundleUsage, [&] { return bundle(argc - 1, argv + 1); });
  if (cmd == "bundle-run")
    return tool_main("nki-sim bundle-run", kBundleRunUsage, [&] { return bundle_run(argc - 1, argv + 1); });
  if (cmd == "calibrate")
    return tool_main("nki-sim calibrate", kCalibrateUsage, [&] { return calibrate(argc - 1, argv + 1); });
  return -1;
}

}  // namespace nkisim::cli
