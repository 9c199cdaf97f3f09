// sweep.h - what-if sweeps (docs/profile.md "Sweeps"): `--target all` and `--sweep NAME=v1,v2,...` over
// targets, target parameters and kernel arguments. Each grid point is an independent run of the same command
// line with the point's settings added; the table of their results is printed as text, CSV or JSON.
#pragma once
#include <string>
#include <vector>

namespace nkisim::api {

struct SweepAxis {
  enum Kind { Target, Param, Arg };
  Kind kind = Arg;
  std::string name;  // "target", a target parameter (--param) or a kernel argument (--arg)
  std::vector<std::string> values;
};

// Axes from the --sweep specs (NAME=v1,v2,...; NAME "target", a target parameter, else a kernel argument)
// and `target_all` (a target axis trn1, trn2, trn3 first). Throws nkisim::Error for a malformed spec, an
// unknown target, a repeated name, a parameter value outside its range, or a grid over kMaxSweepPoints.
constexpr size_t kMaxSweepPoints = 4096;
std::vector<SweepAxis> parse_sweep(const std::vector<std::string>& specs, bool target_all);

// The grid: every combination of the axes' values, the first axis outermost.
std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes);

// The command-line arguments that apply one point: --target V, --param NAME=V, --arg NAME=V.
std::vector<std::string> sweep_point_args(const std::vector<SweepAxis>& axes, const std::vector<std::string>& point);

// `args` without the given options: "--name VALUE", "--name=VALUE" and, for a one-letter alias, "-x VALUE";
// options listed in `flags` take no value.
std::vector<std::string> strip_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                       const std::vector<std::string>& flags);

// One point's outcome: its --stats and --profile-json documents, or the error that stopped it.
struct SweepResult {
  std::vector<std::string> point;
  std::string target;  // the command line's target when no axis sweeps it (names an error row's target)
  std::string stats_json, profile_json;
  std::string error;
};

// The table: the target, a column per other axis, then end time (us), verdict, engine active %, DMA B/ns and
// MFU %. `format`: "text", "csv" (its header starts with "target,") or "json". Throws nkisim::Error for an
// unknown format or a document that does not parse.
std::string format_sweep(const std::vector<SweepAxis>& axes, const std::vector<SweepResult>& rows,
                         const std::string& format);

}  // namespace nkisim::api
