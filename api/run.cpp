// run.cpp - compile_kernel (the LNC policy of the command line) and the reports of a run of any number of cores.
#include "api/run.h"

#include <algorithm>
#include <sstream>

#include "ir/lower.h"
#include "ir/print.h"
#include "sim/profile_analysis.h"
#include "sim/summary.h"

namespace nkisim::api {

Compiled compile_kernel(CompileRequest req) {
  frontend::CompileOptions& copts = req.copts;
  copts.target = req.target.name;
  for (auto& [name, v] : req.params)
    if (name == "hbm_capacity_bytes") copts.hbm_capacity_bytes = v;  // the front end checks HBM tensors with it
  int lnc = req.lnc.value_or(1);
  isa::check_lnc(req.target, lnc);
  // Without an explicit LNC (and no legacy grid) the kernel file decides: an nki.jit kernel launched as
  // kernel[2] in the file runs as LNC=2 (docs/lnc.md). Core 0's compile tells; it is the whole compile at LNC=1.
  std::optional<ir::Kernel> first;
  if (!req.lnc && copts.grid.empty()) {
    copts.lnc = 0;
    copts.lnc_core = 0;
    first = frontend::compile_to_ir(req.kernel_path, copts, &lnc);
  }
  Compiled out;
  out.target = req.target;
  for (int c = 0; c < lnc; ++c) {
    copts.lnc = lnc;
    copts.lnc_core = c;
    ir::Kernel kernel = c == 0 && first ? std::move(*first) : frontend::compile_to_ir(req.kernel_path, copts);
    if (kernel.target != out.target.name) {  // the kernel chose its own target (platform_target=)
      std::optional<isa::TargetDesc> t = isa::find_target(kernel.target);
      if (!t) throw Error(req.kernel_path + ": unknown target '" + kernel.target + "'");
      for (auto& [name, v] : req.params) isa::set_target_param(*t, name, v);
      isa::check_lnc(*t, lnc, SourceLoc{req.kernel_path});
      out.target = *t;
    }
    for (const std::string& f : kernel.source_files)
      if (std::find(out.source_files.begin(), out.source_files.end(), f) == out.source_files.end())
        out.source_files.push_back(f);
    if (c == 0) {
      out.kernel_name = kernel.name;
      out.launch_grid = kernel.launch_grid;
      for (int id : kernel.params) out.tensor_params.push_back(kernel.tensors[size_t(id)].name);
    }
    if (c > 0) kernel.private_hbm_base = int64_t(out.programs.back().hbm_bytes);  // private HBM is per core
    if (req.want_ir) out.ir_text += (lnc > 1 ? "# core " + std::to_string(c) + "\n" : "") + ir::print_kernel(kernel);
    std::vector<ir::TilePlacement> tiles;
    out.programs.push_back(
        ir::lower(kernel, out.target, c == 0 ? &out.notes : nullptr, c == 0 ? &tiles : nullptr, req.semaphore_path));
    for (ir::TilePlacement& t : tiles)  // --check names on-chip memory after the kernel's tensors
      out.check_names.push_back(sim::OnChipName{std::move(t.name), t.mem, t.dtype, std::move(t.shape),
                                                uint32_t(t.partition), t.address});
  }
  return out;
}

Run simulate(std::span<const isa::Program> programs, std::span<const sim::HostArray> inputs,
             const sim::Options& opts) {
  return Run{sim::simulate(programs, inputs, opts)};
}

uint64_t Run::instructions() const {
  uint64_t n = 0;
  for (auto& c : result.cores) n += c.instructions;
  return n;
}

std::map<std::string, double> Run::engine_busy_ns() const {
  std::map<std::string, double> m;
  const size_t n = result.cores.size();
  for (size_t c = 0; c < n; ++c)
    for (auto& [name, e] : result.cores[c].engines)
      m[(n > 1 ? "core" + std::to_string(c) + "." : std::string()) + name] = e.busy_ns;
  return m;
}

void Run::write_stats_json(std::ostream& os) const { sim::write_stats_json(result, os); }

void Run::write_trace_json(std::span<const isa::Program> programs, std::ostream& os, sim::TraceDetail detail) const {
  sim::write_trace_json(programs, result, os, detail);
}

std::string Run::profile(std::span<const isa::Program> programs, const isa::TargetDesc* t) const {
  return sim::format_profile(programs, result, t);
}

void Run::write_profile_json(std::span<const isa::Program> programs, const isa::TargetDesc& t,
                             std::ostream& os) const {
  sim::write_profile_json(programs, result, t, os);
}

std::string Run::explain(std::span<const isa::Program> programs, const isa::TargetDesc& t, int line,
                         const std::string& file) const {
  return sim::format_explain(programs, result, t, line, file);
}

std::string Run::summary(std::span<const isa::Program> programs, const std::vector<std::string>& written) const {
  std::string s;
  const size_t n = result.cores.size();
  for (size_t c = 0; c < n; ++c)
    s += (n > 1 ? "core " + std::to_string(c) + ": " : std::string()) +
         sim::format_summary(programs[c], result.cores[c], c + 1 == n ? written : std::vector<std::string>{});
  return s;
}

}  // namespace nkisim::api
