// nki_sim_modes.h - the nki-sim modes that run a command line more than once (tools/nki_sim_modes.cpp;
// docs/profile.md): what-if sweeps (--sweep, --target all) and `nki-sim compare A B`.
#pragma once
#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

namespace nkisim::cli {

// Runs one nki-sim command line in this process (`args` follow the executable); throws as a run does.
using RunFn = std::function<int(const std::vector<std::string>& args)>;

// --sweep / --target all: `args` is the whole command line (after the executable), `vm` its parsed options.
// Each point of the grid runs as `args` with the point's settings (api::sweep_point_args); prints the table;
// returns 1 when a point failed (its error printed), else 0.
int run_sweep(const std::vector<std::string>& args, const boost::program_options::variables_map& vm, const RunFn& run);

// nki-sim compare A B [--json] [options]: `args` follow "compare".
int run_compare(const std::vector<std::string>& args, const RunFn& run);

}  // namespace nkisim::cli
