// simulate_lnc.cpp - LNC=2 (machine.md §12): one program per physical core, simulated concurrently in one
// timeline. Each core has its own ExecContext (SBUF, PSUM, engines, registers, PE state) and Scheduler
// (engines, semaphores, DMA queues and engines); HBM is shared: exactly one ExecContext holds the HBM space
// at a time and the driver hands it to the core whose event runs next. Events are taken in time order over
// the cores (ties: lower core first); a core_barrier's signal reaches the other core core_barrier_ns after
// it was sent, as an event of its own, and so does the news that a sendrecv's transfer (on the sending core's
// DMA queues, sim/scheduler_sendrecv.cpp) has filled the other core's dst. Functional mode (no timing):
// sim/functional_lnc.cpp.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <memory>
#include <queue>

#include "sim/functional_lnc.h"
#include "sim/scheduler.h"
#include "sim/scheduler_impl.h"

namespace nkisim::sim {
namespace {

// The outputs and written inputs, read once from the shared HBM.
template <class Own>
LncResult read_lnc_results(std::vector<std::unique_ptr<ExecContext>>& ctx, Own& own, LncResult& out) {
  own(0);
  for (size_t c = 1; c < ctx.size(); ++c)  // an input written by any core
    for (size_t i = 0; i < ctx[0]->tensor_written.size(); ++i) ctx[0]->tensor_written[i] |= ctx[c]->tensor_written[i];
  Result shared;
  read_results(*ctx[0], shared);
  out.outputs = std::move(shared.outputs);
  out.written_inputs = std::move(shared.written_inputs);
  return std::move(out);
}

}  // namespace

LncResult simulate_lnc(std::span<const isa::Program> programs, std::span<const HostArray> inputs,
                       const Options& opts_in) {
  const size_t n = programs.size();
  if (n == 0) throw Error("simulate_lnc: no program");
  Options opts = opts_in;
  opts.parallel = false;  // the driver interleaves the cores' event loops: compile everything up front
  std::optional<isa::TargetDesc> target = opts.target;
  if (!target) target = isa::find_target(programs[0].target);
  if (!target) throw Error("unknown target '" + programs[0].target + "'");
  if (double(n) > target->max_lnc)
    throw Error(target->name + " supports LNC up to " + std::to_string(int(target->max_lnc)) + ", not " + std::to_string(n));
  // The cores share one HBM space: their inputs and outputs must be the same tensors, and any other tensor is
  // either one they share (the same name, place and size: shared_hbm) or one core's own (private HBM, which the
  // back end places after the previous core's space) that overlaps nothing of another core.
  auto io = [](const isa::Program& p) {
    std::vector<isa::HbmTensor> v;
    for (const auto& t : p.hbm_tensors)
      if (t.kind != isa::HbmTensor::Kind::Internal) v.push_back(t);
    return v;
  };
  for (size_t c = 1; c < n; ++c) {
    bool same = io(programs[c]) == io(programs[0]);
    for (const auto& t : programs[c].hbm_tensors)
      for (size_t d = 0; same && d < c; ++d)
        for (const auto& u : programs[d].hbm_tensors)
          if (t.address < u.address + u.bytes && u.address < t.address + t.bytes && !(t == u)) same = false;
    if (!same)
      throw Error("LNC: core " + std::to_string(c) + " lays out its HBM tensors differently from core 0 (the cores "
                  "must have the same inputs and outputs, and share only identical tensors)");
  }
  uint64_t hbm_bytes = 0;
  for (const isa::Program& p : programs) isa::check_program_fits(p, *target, "");  // before anything is allocated
  for (const isa::Program& p : programs) hbm_bytes = std::max(hbm_bytes, hbm_space_bytes(p));

  std::vector<std::unique_ptr<ExecContext>> ctx;
  for (const isa::Program& p : programs) {
    ctx.push_back(std::make_unique<ExecContext>(p, *target, hbm_bytes));
    ctx.back()->interrupt = opts.interrupt;
    ctx.back()->print_dir = opts.print_dir;
    ctx.back()->print_tag = "core" + std::to_string(ctx.size() - 1) + "_";
    ctx.back()->run_elements_budget = opts.max_run_elements;
  }
  if (!opts.timing_only)
    for (size_t c = 0; c < n; ++c) ctx[c]->prepare_pages(c == 0);  // core 0 holds the HBM space first
  // Every core must reach the same core_barriers (per engine), or the odd one out would wait forever.
  for (int e = 0; e < isa::kNumEngines; ++e) {
    std::vector<std::vector<const isa::Instruction*>> bars(n);
    for (size_t c = 0; c < n; ++c)
      for (const isa::Instruction& ins : programs[c].streams[size_t(e)])
        if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) bars[c].push_back(&ins);
    for (size_t c = 1; c < n; ++c) {
      // sendrecvs pair up in order with the peer's (same pipe_id, peer's src matching our dst); they share
      // the barrier numbering, so a core_barrier must meet a core_barrier.
      for (size_t k = 0; k < std::min(bars[c].size(), bars[0].size()); ++k) {
        const isa::Instruction &a = *bars[0][k], &b = *bars[c][k];
        auto what = [](const isa::Instruction& x) {
          return x.op == isa::Opcode::core_barrier ? std::string("core_barrier")
                                                   : "sendrecv with pipe_id " + std::to_string(x.params.pipe_id);
        };
        if (a.op != b.op || (a.op == isa::Opcode::sendrecv && a.params.pipe_id != b.params.pipe_id))
          ctx[0]->fail(a, std::string(isa::info(a.op).mnemonic) + ": core 0's " + what(a) + " on " +
                              std::string(isa::engine_name(isa::Engine(e))) + " meets a " + what(b) + " on core " +
                              std::to_string(c) + " (the cores must issue matching sendrecvs and barriers in the "
                              "same order)");
        if (a.op != isa::Opcode::sendrecv) continue;
        for (int side = 0; side < 2; ++side) {
          const isa::AccessPattern &dst = (side ? b : a).operands[0], &src = (side ? a : b).operands[1];
          if (dst.dtype != src.dtype || dst.num_partitions != src.num_partitions ||
              dst.free_elements() != src.free_elements())
            ctx[side ? c : 0]->fail(side ? b : a, "sendrecv: core " + std::to_string(side ? c : 0) + "'s dst (" +
                                                      std::string(isa::dtype_name(dst.dtype)) + ", " +
                                                      std::to_string(dst.num_partitions) + " x " +
                                                      std::to_string(dst.free_elements()) + ") does not match core " +
                                                      std::to_string(side ? 0 : c) + "'s src (" +
                                                      std::string(isa::dtype_name(src.dtype)) + ", " +
                                                      std::to_string(src.num_partitions) + " x " +
                                                      std::to_string(src.free_elements()) + ")");
        }
      }
      if (bars[c].size() == bars[0].size()) continue;
      const size_t more = bars[c].size() > bars[0].size() ? c : 0, less = more ? 0 : c;
      const isa::Instruction& odd = *bars[more][bars[less].size()];
      if (odd.op == isa::Opcode::sendrecv)
        ctx[more]->fail(odd, "sendrecv: core " + std::to_string(more) + "'s sendrecv with pipe_id " +
                                 std::to_string(odd.params.pipe_id) + " on " +
                                 std::string(isa::engine_name(isa::Engine(e))) + " has no match: core " +
                                 std::to_string(less) + " issues no further sendrecv there");
      ctx[more]->fail(odd,
                      "core_barrier: core " + std::to_string(more) + " reaches " + std::to_string(bars[more].size()) +
                          " core_barrier(s) on " + std::string(isa::engine_name(isa::Engine(e))) + " but core " +
                          std::to_string(less) + " reaches " + std::to_string(bars[less].size()) +
                          " (every core must reach the same barriers)");
    }
  }
  size_t owner = 0;  // the context holding the shared HBM
  auto own = [&](size_t c) {
    if (c == owner) return;
    std::swap(ctx[owner]->mem.hbm, ctx[c]->mem.hbm);
    owner = c;
  };
  if (opts.functional && opts.timing_only) throw Error("functional and timing-only runs exclude each other");
  if (opts.functional)
    for (size_t c = 0; c < n; ++c) validate_program(*ctx[c]);  // a timed run validates in the scheduler
  bind_inputs(*ctx[0], inputs, opts);
  std::unique_ptr<Checker> checker;  // --check (sim/check.h): one shadow of the shared HBM, one per core on chip
  if (opts.checks && !opts.timing_only) {
    checker = std::make_unique<Checker>(opts.checks, opts.check_errors, n, opts.check_names);
    for (size_t c = 0; c < n; ++c) checker->attach(*ctx[c], uint32_t(c));
    for (size_t c = 0; c < n; ++c) checker->mark_inputs(ctx[c]->program);
  }
  auto check_finish = [&](LncResult& out) {
    if (!checker) return;
    own(0);
    checker->finish(*ctx[0]);
    out.findings = checker->take_findings();
  };

  LncResult out;
  out.cores.resize(n);
  if (opts.functional) {  // numerics only (sim/functional_lnc.cpp)
    std::vector<ExecContext*> raw;
    for (auto& c : ctx) raw.push_back(c.get());
    for (size_t c = 0; c < n; ++c) out.cores[c].target = target->name;
    run_functional_lnc(raw, own, out.cores, opts.max_loop_iterations);
    check_finish(out);
    return read_lnc_results(ctx, own, out);
  }
  struct Remote {
    double t;
    uint64_t seq;
    size_t core;
    uint16_t sem;
    uint32_t add;     // a semaphore signal (core_barrier / sendrecv), or for an arrival the sendrecv's number
    bool arrival;     // a sendrecv transfer into `core`'s dst completed
    bool operator>(const Remote& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Remote, std::vector<Remote>, std::greater<Remote>> remote;
  std::map<std::tuple<size_t, uint16_t, int32_t>, std::vector<uint8_t>> mailbox;  // (to core, sem, n): sendrecv data
  uint64_t seq = 0;
  std::map<std::pair<size_t, uint16_t>, uint32_t> signals_sent;  // (core, semaphore) -> signals so far
  std::vector<std::unique_ptr<detail::Scheduler>> s;
  // The cores draw on one HBM: n shares of bandwidth, split between all DMA engines moving HBM data.
  detail::Scheduler::HbmPool hbm{0, double(n) * target->hbm_bytes_per_ns};
  for (size_t c = 0; c < n; ++c) {
    out.cores[c].target = target->name;
    own(c);
    s.push_back(std::make_unique<detail::Scheduler>(*ctx[c], opts, out.cores[c]));
    s[c]->share_hbm(&hbm);
    s[c]->remote_update = [&, c](uint16_t sem, uint32_t add, double t) {
      if (opts.timeline || opts.trace) {  // --explain, --profile, --trace: the k-th signal of core c on sem is
        const uint32_t k = ++signals_sent[{c, sem}];  // its barrier number k
        out.signals.push_back(LncResult::Signal{uint32_t(c), sem, k, t - target->core_barrier_ns, t});
      }
      for (size_t d = 0; d < n; ++d)
        if (d != c) remote.push(Remote{t, seq++, d, sem, add, false});
    };
    s[c]->remote_arrival = [&, c](uint16_t sem, int32_t k, double t) {
      for (size_t d = 0; d < n; ++d)
        if (d != c) remote.push(Remote{t, seq++, d, sem, uint32_t(k), true});
    };
    s[c]->send_payload = [&, c](uint16_t sem, int32_t k, std::vector<uint8_t> bytes) {
      for (size_t d = 0; d < n; ++d)
        if (d != c) mailbox[{d, sem, k}] = bytes;
    };
    s[c]->take_payload = [&, c](uint16_t sem, int32_t k) {
      auto it = mailbox.find({c, sem, k});
      if (it == mailbox.end()) return std::vector<uint8_t>{};
      std::vector<uint8_t> b = std::move(it->second);
      mailbox.erase(it);
      return b;
    };
  }
  for (size_t c = 0; c < n; ++c) {
    own(c);
    s[c]->start();
  }
  uint64_t total_instructions = 0;
  for (const isa::Program& pr : programs)
    for (const auto& stream : pr.streams) total_instructions += stream.size();
  for (uint32_t steps = 0;; ++steps) {
    if (opts.progress && (steps & 4095) == 4095) {
      uint64_t issued = 0;
      for (size_t c = 0; c < n; ++c) issued += s[c]->issued();
      opts.progress(issued, total_instructions);
    }
    size_t best = n;
    double bt = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < n; ++c)
      if (!s[c]->idle() && s[c]->next_time() < bt) bt = s[c]->next_time(), best = c;
    if (!remote.empty() && remote.top().t < bt) {
      const Remote r = remote.top();
      remote.pop();
      own(r.core);
      if (r.arrival) s[r.core]->sendrecv_arrived(r.sem, int32_t(r.add), r.t);
      else s[r.core]->external_update(r.sem, r.add, r.t);
      continue;
    }
    if (best == n) break;
    own(best);
    ctx[best]->poll_interrupt();
    s[best]->step();
  }
  for (size_t c = 0; c < n; ++c) {
    own(c);
    s[c]->finish_run();
    out.total_ns = std::max(out.total_ns, out.cores[c].total_ns);
  }
  if (opts.timing_only) return out;
  check_finish(out);
  return read_lnc_results(ctx, own, out);
}

}  // namespace nkisim::sim
