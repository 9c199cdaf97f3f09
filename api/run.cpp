// run.cpp - compile_kernel (the LNC policy of the command line) and one interface over one- and two-core runs.
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
  if (lnc < 1 || lnc > int(req.target.max_lnc))
    throw Error("LNC=" + std::to_string(lnc) + ": " + req.target.name + " supports only LNC=" +
                std::to_string(int(req.target.max_lnc)));
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
      if (lnc > int(t->max_lnc))
        throw Error(req.kernel_path + ": an LNC=" + std::to_string(lnc) + " kernel, but its platform_target " +
                    t->name + " supports only LNC=" + std::to_string(int(t->max_lnc)));
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
    out.programs.push_back(ir::lower(kernel, out.target, c == 0 ? &out.notes : nullptr, c == 0 ? &tiles : nullptr));
    for (ir::TilePlacement& t : tiles)  // --check names on-chip memory after the kernel's tensors
      out.check_names.push_back(sim::OnChipName{std::move(t.name), t.mem, t.dtype, std::move(t.shape),
                                                uint32_t(t.partition), t.address});
  }
  return out;
}

Run simulate(std::span<const isa::Program> programs, std::span<const sim::HostArray> inputs,
             const sim::Options& opts) {
  Run r;
  if (programs.size() == 1) r.single = sim::simulate(programs[0], inputs, opts);
  else r.multi = sim::simulate(programs, inputs, opts);
  return r;
}

uint64_t Run::instructions() const {
  if (single) return single->instructions;
  uint64_t n = 0;
  for (auto& c : multi->cores) n += c.instructions;
  return n;
}

std::map<std::string, double> Run::engine_busy_ns() const {
  std::map<std::string, double> m;
  if (single) {
    for (auto& [name, e] : single->engines) m[name] = e.busy_ns;
    return m;
  }
  for (size_t c = 0; c < multi->cores.size(); ++c)
    for (auto& [name, e] : multi->cores[c].engines) m["core" + std::to_string(c) + "." + name] = e.busy_ns;
  return m;
}

void Run::write_stats_json(std::ostream& os) const {
  if (single) sim::write_stats_json(*single, os);
  else sim::write_lnc_stats_json(*multi, os);
}

void Run::write_trace_json(std::span<const isa::Program> programs, std::ostream& os, sim::TraceDetail detail) const {
  if (single) sim::write_trace_json(*single, os, detail);
  else sim::write_lnc_trace_json(programs, *multi, os, detail);
}

std::string Run::profile(std::span<const isa::Program> programs, const isa::TargetDesc* t) const {
  return single ? sim::format_profile(programs[0], *single, t) : sim::format_profile_lnc(programs, *multi, t);
}

void Run::write_profile_json(std::span<const isa::Program> programs, const isa::TargetDesc& t,
                             std::ostream& os) const {
  if (single) sim::write_profile_json(programs[0], *single, t, os);
  else sim::write_lnc_profile_json(programs, *multi, t, os);
}

std::string Run::explain(std::span<const isa::Program> programs, const isa::TargetDesc& t, int line,
                         const std::string& file) const {
  return single ? "\n" + sim::format_explain(programs[0], *single, t, line, file)
                : sim::format_explain_lnc(programs, *multi, t, line, file);
}

std::string Run::summary(std::span<const isa::Program> programs, const std::vector<std::string>& written) const {
  if (single) return sim::format_summary(programs[0], *single, written);
  std::string s;
  for (size_t c = 0; c < multi->cores.size(); ++c)
    s += "core " + std::to_string(c) + ": " +
         sim::format_summary(programs[c], multi->cores[c],
                             c + 1 == multi->cores.size() ? written : std::vector<std::string>{});
  return s;
}

}  // namespace nkisim::api
