// nki_sim_modes.cpp - what-if sweeps and `nki-sim compare` on the command line (docs/profile.md): each runs the
// nki-sim command line once per point or operand, into a temporary directory, and prints the api's table.
#include "tools/nki_sim_modes.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "api/compare.h"
#include "api/sweep.h"
#include "isa/diagnostic.h"
#include "tools/cli_common.h"

namespace nkisim::cli {
namespace fs = std::filesystem;

namespace {

// A temporary directory, removed with its contents at the end of the scope.
struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "nki-sim-XXXXXX").string();
    if (!mkdtemp(t.data())) throw Error("cannot create a temporary directory: " + std::string(std::strerror(errno)));
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

// The points are independent: GNU parallel or a Slurm job array can run them instead (docs/profile.md).
int run_sweep(const std::vector<std::string>& argv, const boost::program_options::variables_map& vm, const RunFn& run) {
  for (const char* o : {"stats", "trace", "profile", "profile-json", "explain", "emit", "functional"})
    if (vm.count(o)) throw UsageError(std::string("--") + o + " does not combine with a sweep: run the point alone");
  std::vector<api::SweepAxis> axes;
  try {
    axes = api::parse_sweep(vm.count("sweep") ? vm["sweep"].as<std::vector<std::string>>() : std::vector<std::string>{},
                            vm["target"].as<std::string>() == "all");
    api::format_sweep(axes, {}, vm["sweep-format"].as<std::string>());  // checks the format
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const bool target_axis = std::any_of(axes.begin(), axes.end(), [](auto& a) { return a.kind == api::SweepAxis::Target; });
  std::vector<std::string> with_value{"--sweep", "--sweep-format", "--output-dir", "-o"};
  if (target_axis) with_value.push_back("--target");
  const std::vector<std::string> base = api::strip_options(argv, with_value, {"--quiet", "-q"});
  TempDir tmp;
  std::vector<api::SweepResult> rows;
  int status = 0;
  for (const std::vector<std::string>& point : api::sweep_points(axes)) {
    api::SweepResult res;
    res.point = point;
    if (!target_axis) res.target = vm["target"].as<std::string>();
    const std::string stem = tmp.path + "/p" + std::to_string(rows.size());
    std::vector<std::string> args = base;
    for (const std::string& a : api::sweep_point_args(axes, point)) args.push_back(a);
    args.insert(args.end(), {"-q", "-o", stem, "--stats", stem + ".stats.json", "--profile-json", stem + ".profile.json"});
    try {
      run(args);
      res.stats_json = read_regular_file(stem + ".stats.json", kMaxInputFileBytes);
      res.profile_json = read_regular_file(stem + ".profile.json", kMaxInputFileBytes);
    } catch (const Error& e) {
      std::cerr << format_diagnostic(e, read_registered_source_line, "nki-sim");
      res.error = e.what();
      std::replace(res.error.begin(), res.error.end(), '\n', ' ');
      status = 1;
    }
    rows.push_back(std::move(res));
  }
  std::cout << api::format_sweep(axes, rows, vm["sweep-format"].as<std::string>());
  return status;
}

// A and B are --stats or --profile-json documents (*.json), binary programs (*.nkibin, run with --program) or
// kernels, which run with the options and compare by their profiles.
int run_compare(const std::vector<std::string>& argv, const RunFn& run) {
  if (argv.size() < 2) throw UsageError("compare expects two operands: nki-sim compare A B [--json] [options]");
  const std::vector<std::string> given(argv.begin() + 2, argv.end());
  const bool as_json = std::find(given.begin(), given.end(), "--json") != given.end();
  const std::vector<std::string> rest =
      api::strip_options(given, {"--output-dir", "-o", "--profile-json"}, {"--json", "--quiet", "-q"});
  TempDir tmp;
  std::vector<api::RunDoc> docs;
  for (int k = 0; k < 2; ++k) {
    const std::string& operand = argv[size_t(k)];
    std::string path = operand;
    if (!operand.ends_with(".json")) {
      path = tmp.path + "/run" + std::to_string(k) + ".json";
      std::vector<std::string> args{operand};
      if (operand.ends_with(".nkibin")) args.insert(args.begin(), "--program");
      args.insert(args.end(), rest.begin(), rest.end());
      args.insert(args.end(), {"-q", "-o", tmp.path + "/out" + std::to_string(k), "--profile-json", path});
      run(args);
    }
    docs.push_back(api::load_run_document(read_regular_file(path, kMaxInputFileBytes), operand));
  }
  std::cout << (as_json ? api::compare_json(docs[0], docs[1]) : api::compare_text(docs[0], docs[1]));
  return 0;
}

}  // namespace nkisim::cli
