// simulate.cpp - the public entry point: set up the machine (N cores sharing HBM), bind inputs, run, read results.
#include "sim/simulate.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "sim/exec.h"
#include "sim/machine.h"
#include "sim/scheduler.h"

namespace nkisim::sim {
using isa::HbmTensor;

namespace {
std::string shape_text(isa::DType t, const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << isa::dtype_name(t) << " [";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

// Indices of the tensors of `kind` (or, for outputs, every tensor with an output_index), ordered.
std::vector<size_t> inputs_in_order(const isa::Program& p) {
  std::vector<size_t> v;
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i)
    if (p.hbm_tensors[i].kind == HbmTensor::Kind::Input) v.push_back(i);
  std::stable_sort(v.begin(), v.end(),
                   [&](size_t a, size_t b) { return p.hbm_tensors[a].param_index < p.hbm_tensors[b].param_index; });
  return v;
}
std::vector<size_t> outputs_in_order(const isa::Program& p) {
  std::vector<size_t> v;
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i)
    if (p.hbm_tensors[i].output_index >= 0) v.push_back(i);
  std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) {
    return p.hbm_tensors[a].output_index < p.hbm_tensors[b].output_index;
  });
  return v;
}

// The final contents of `t`: a copy, or (in_place) a view of the simulated HBM that shares its ownership.
HostArray read_tensor(ExecContext& ctx, const HbmTensor& t, bool in_place) {
  HostArray a;
  a.dtype = t.dtype;
  a.shape = t.shape;
  ctx.mem.hbm.prepare(0, 1, t.address, t.address + t.bytes);
  if (in_place) {
    a.view = ctx.mem.hbm.ptr(0, t.address);
    a.view_size = t.bytes;
    a.owner = ctx.mem.hbm.share();
    return a;
  }
  a.data.resize(t.bytes);
  if (t.bytes) std::memcpy(a.data.data(), ctx.mem.hbm.ptr(0, t.address), t.bytes);
  return a;
}

void collect_results(ExecContext& ctx, std::vector<HostArray>& outputs,
                     std::vector<std::pair<std::string, HostArray>>& written_inputs, bool in_place) {
  const isa::Program& p = ctx.program;
  for (size_t i : outputs_in_order(p)) outputs.push_back(read_tensor(ctx, p.hbm_tensors[i], in_place));
  for (size_t i : inputs_in_order(p))
    if (ctx.tensor_written[i])
      written_inputs.emplace_back(p.hbm_tensors[i].name, read_tensor(ctx, p.hbm_tensors[i], in_place));
  if (!in_place) return;
  // The views keep the whole HBM allocation alive: give back the pages no view covers (inputs, scratch), so
  // a caller holding the outputs holds only their memory.
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  auto keep = [&](const HostArray& a) {
    if (!a.view || !a.view_size) return;
    const uint64_t lo = uint64_t(a.view - ctx.mem.hbm.ptr(0, 0));
    kept.push_back({lo, lo + a.view_size});
  };
  for (const HostArray& o : outputs) keep(o);
  for (const auto& w : written_inputs) keep(w.second);
  std::sort(kept.begin(), kept.end());
  uint64_t from = 0;
  for (auto [lo, hi] : kept) {
    if (lo > from) ctx.mem.hbm.release(0, from, lo);
    from = std::max(from, hi);
  }
  ctx.mem.hbm.release(0, from, ctx.mem.hbm.partition_bytes());
}

// Inputs whose bytes lie unchanged in a file (ByteSource::file_offset) are mapped into HBM instead of read
// (bind_inputs): no copy, and no zero-filled pages faulted in first. That needs the HBM host address of the
// tensor congruent with the file offset modulo the page size; returns the HBM host offset (MemorySpace::init)
// that makes it so for the most input bytes, and the tensors (by hbm_tensors index) it makes mappable.
std::pair<uint64_t, std::vector<size_t>> mappable_inputs(const isa::Program& p, std::span<const HostArray> inputs,
                                                         const Options& opts) {
  constexpr uint64_t kPage = 4096, kMinBytes = uint64_t(1) << 20;  // small inputs: a read is as cheap
  const std::vector<size_t> in = inputs_in_order(p);
  std::vector<std::pair<uint64_t, size_t>> cand;  // (host offset, tensor)
  for (size_t k = 0; !opts.timing_only && k < in.size() && k < inputs.size(); ++k) {
    const HbmTensor& t = p.hbm_tensors[in[k]];
    const HostArray& a = inputs[k];
    const int64_t off = a.source ? a.source->file_offset() : -1;
    if (off < 0 || t.bytes < kMinBytes || a.dtype != t.dtype || a.shape != t.shape || a.byte_size() != t.bytes) continue;
    const uint64_t host = (uint64_t(off) - t.address) % kPage;
    if (host % 64 == 0) cand.push_back({host, in[k]});  // keeps HBM cache-line aligned
  }
  uint64_t best = 0, best_bytes = 0;
  for (auto [h, i] : cand) {
    uint64_t bytes = 0;
    for (auto [h2, j] : cand) bytes += h2 == h ? p.hbm_tensors[j].bytes : 0;
    if (bytes > best_bytes) best = h, best_bytes = bytes;
  }
  std::vector<size_t> mapped;
  for (auto [h, i] : cand)
    if (h == best) mapped.push_back(i);
  return {best, mapped};
}

// The cores share one HBM space: their inputs and outputs must be the same tensors, and any other tensor is
// either one they share (the same name, place and size: shared_hbm) or one core's own (private HBM, which the
// back end places after the previous core's space) that overlaps nothing of another core.
void check_core_layouts(std::span<const isa::Program> programs) {
  auto io = [](const isa::Program& p) {
    std::vector<isa::HbmTensor> v;
    for (const auto& t : p.hbm_tensors)
      if (t.kind != isa::HbmTensor::Kind::Internal) v.push_back(t);
    return v;
  };
  for (size_t c = 1; c < programs.size(); ++c) {
    bool same = io(programs[c]) == io(programs[0]);
    for (const auto& t : programs[c].hbm_tensors)
      for (size_t d = 0; same && d < c; ++d)
        for (const auto& u : programs[d].hbm_tensors)
          if (t.address < u.address + u.bytes && u.address < t.address + t.bytes && !(t == u)) same = false;
    if (!same)
      throw Error("LNC: core " + std::to_string(c) + " lays out its HBM tensors differently from core 0 (the cores "
                  "must have the same inputs and outputs, and share only identical tensors)");
  }
}

}  // namespace

RunResult simulate(std::span<const isa::Program> programs, std::span<const HostArray> inputs, const Options& opts) {
  const size_t n = programs.size();
  if (n == 0) throw Error("simulate: no program");
  std::optional<isa::TargetDesc> target = opts.target;
  if (!target) target = isa::find_target(programs[0].target);
  if (!target) throw Error("unknown target '" + programs[0].target + "'");
  isa::check_lnc(*target, int64_t(n));
  check_core_layouts(programs);
  uint64_t hbm_bytes = 0;
  for (const isa::Program& p : programs) isa::check_program_fits(p, *target, "");  // before anything is allocated
  for (const isa::Program& p : programs) hbm_bytes = std::max(hbm_bytes, hbm_space_bytes(p));

  Machine m(*target);
  const auto [host_offset, mapped] = mappable_inputs(programs[0], inputs, opts);
  m.hbm.init(1, hbm_bytes, host_offset);
  if (!mapped.empty()) m.hbm.holds_files();  // input files mapped: never reused (MemorySpace::reuse_freed_memory)
  for (size_t c = 0; c < n; ++c) {
    m.cores.push_back(std::make_unique<ExecContext>(programs[c], *target, m.hbm));
    ExecContext& ctx = *m.cores.back();
    ctx.interrupt = opts.interrupt;
    ctx.run_elements_budget = opts.max_run_elements;
    ctx.print_sink = opts.print_sink;
    ctx.print_dir = opts.print_dir;
    if (n > 1) ctx.print_tag = "core" + std::to_string(c) + "_";
  }
  for (size_t i : mapped) m.cores[0]->tensor_mapped[i] = 1;
  if (!opts.timing_only)
    for (size_t c = 0; c < n; ++c) m.cores[c]->prepare_pages(c == 0, opts.huge_pages);  // the shared HBM once
  check_cross_core_pairs(m);
  if (opts.functional && opts.timing_only) throw Error("functional and timing-only runs exclude each other");
  if (opts.functional)
    for (auto& ctx : m.cores) validate_program(*ctx);  // a timed run validates in the scheduler
  bind_inputs(*m.cores[0], inputs, opts);
  std::unique_ptr<Checker> checker;  // --check (sim/check.h): one shadow of the shared HBM, one per core on chip
  if (opts.checks && !opts.timing_only) {
    checker = std::make_unique<Checker>(opts.checks, opts.check_errors, n, opts.check_names);
    for (size_t c = 0; c < n; ++c) checker->attach(*m.cores[c], uint32_t(c));
    for (size_t c = 0; c < n; ++c) checker->mark_inputs(programs[c]);
  }

  RunResult out;
  out.cores.resize(n);
  for (Result& r : out.cores) r.target = target->name;
  if (opts.functional) run_functional(m, opts, out.cores);
  else run_timed(m, opts, out);
  if (opts.timing_only) return out;  // no outputs: nothing was computed
  if (checker) {
    checker->finish(*m.cores[0]);
    out.findings = checker->take_findings();
  }
  for (size_t c = 1; c < n; ++c)  // an input written by any core
    for (size_t i = 0; i < m.cores[0]->tensor_written.size(); ++i)
      m.cores[0]->tensor_written[i] |= m.cores[c]->tensor_written[i];
  collect_results(*m.cores[0], out.outputs, out.written_inputs, opts.outputs_in_place);
  return out;
}

Result simulate(const isa::Program& p, std::span<const HostArray> inputs, const Options& opts) {
  RunResult run = simulate(std::span<const isa::Program>(&p, 1), inputs, opts);
  Result r = std::move(run.cores[0]);
  r.outputs = std::move(run.outputs);
  r.written_inputs = std::move(run.written_inputs);
  r.findings = std::move(run.findings);
  return r;
}

uint64_t hbm_space_bytes(const isa::Program& p) {
  uint64_t hbm_bytes = p.hbm_bytes;
  for (const HbmTensor& t : p.hbm_tensors) hbm_bytes = std::max(hbm_bytes, t.address + t.bytes);
  return hbm_bytes;
}

void bind_inputs(ExecContext& ctx, std::span<const HostArray> inputs, const Options& opts) {
  const isa::Program& p = ctx.program;
  // Bind the inputs (param_index order) and copy them into HBM.
  std::vector<size_t> in = inputs_in_order(p);
  // A timing-only run computes nothing, so it may be given no inputs at all.
  const bool bind = !(opts.timing_only && inputs.empty());
  if (bind && inputs.size() != in.size()) {
    std::ostringstream os;
    os << "kernel '" << p.kernel_name << "' takes " << in.size() << " input tensor" << (in.size() == 1 ? "" : "s")
       << " but " << inputs.size() << (inputs.size() == 1 ? " was" : " were") << " given";
    throw Error(os.str());
  }
  for (size_t k = 0; bind && k < in.size(); ++k) {
    const HbmTensor& t = p.hbm_tensors[in[k]];
    const HostArray& a = inputs[k];
    if (a.dtype != t.dtype || a.shape != t.shape) {
      throw Error("input " + std::to_string(k) + " ('" + t.name + "'): expected " + shape_text(t.dtype, t.shape) +
                  ", got " + shape_text(a.dtype, a.shape));
    }
    if (a.byte_size() != t.bytes) {
      throw Error("input " + std::to_string(k) + " ('" + t.name + "'): expected " + std::to_string(t.bytes) +
                  " bytes of data, got " + std::to_string(a.byte_size()));
    }
    if (opts.timing_only) continue;  // no data effects: the inputs are only checked
    ctx.mem.hbm.prepare_overwrite(0, 1, t.address, t.address + t.bytes);
    if (!t.bytes) continue;
    uint8_t* dst = ctx.mem.hbm.ptr(0, t.address);
    if (a.source && !(ctx.tensor_mapped[in[k]] && a.source->map_into(dst)))
      a.source->read_into(dst);  // e.g. straight from the .npy file
    else if (!a.source) std::memcpy(dst, a.bytes(), t.bytes);
  }
  // Constant data (nl.shared_constant) is in HBM before the run, like the inputs.
  for (const HbmTensor& t : p.hbm_tensors) {
    if (t.init.empty()) continue;
    isa::check_constant_data(t);
    if (opts.timing_only) continue;
    ctx.mem.hbm.prepare_overwrite(0, 1, t.address, t.address + t.bytes);
    std::memcpy(ctx.mem.hbm.ptr(0, t.address), t.init.data(), t.bytes);
  }
}

}  // namespace nkisim::sim
