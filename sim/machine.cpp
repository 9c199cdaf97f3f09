// machine.cpp - the cores of one run together (machine.md §12): the check that they meet at matching
// core_barriers and sendrecvs, and the timed run. Each core has its own Scheduler (engines, semaphores, DMA
// queues and engines) over its ExecContext; HBM is one space that every core's context refers to. Events are
// taken in time order over the cores (ties: lower core first); a core_barrier's signal reaches the other core
// core_barrier_ns after it was sent, as an event of its own, and so does the news that a sendrecv's transfer (on
// the sending core's DMA queues, sim/scheduler_sendrecv.cpp) has filled the other core's dst. One core is the
// same loop with no peer. Functional mode (no timing): sim/functional.cpp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <queue>

#include "sim/machine.h"
#include "sim/scheduler_impl.h"

namespace nkisim::sim {
void check_cross_core_pairs(const Machine& m) {
  const size_t n = m.size();
  if (n < 2) return;
  std::vector<const isa::Program*> programs;
  for (const auto& c : m.cores) programs.push_back(&c->program);
  const auto& ctx = m.cores;
  // Every core must reach the same core_barriers (per engine), or the odd one out would wait forever.
  for (int e = 0; e < isa::kNumEngines; ++e) {
    std::vector<std::vector<const isa::Instruction*>> bars(n);
    for (size_t c = 0; c < n; ++c)
      for (const isa::Instruction& ins : programs[c]->streams[size_t(e)])
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
}

void run_timed(Machine& m, const Options& opts_in, RunResult& out) {
  const size_t n = m.size();
  Options opts = opts_in;
  // Several cores interleave their event loops: each compiles everything up front (no preparation worker).
  if (n > 1) opts.parallel = false;
  const isa::TargetDesc* target = &m.target;
  const auto& ctx = m.cores;
  auto cpu_ms = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
  };
  const double t0 = cpu_ms();
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
  uint64_t seq = 0;
  std::map<std::pair<size_t, uint16_t>, uint32_t> signals_sent;  // (core, semaphore) -> signals so far
  std::vector<std::unique_ptr<detail::Scheduler>> s;
  // The cores draw on one HBM: n shares of bandwidth, split between all DMA engines moving HBM data.
  detail::Scheduler::HbmPool hbm{0, double(n) * target->hbm_bytes_per_ns};
  for (size_t c = 0; c < n; ++c) {
    s.push_back(std::make_unique<detail::Scheduler>(*ctx[c], opts, out.cores[c]));
    s[c]->share_hbm(&hbm);
    s[c]->remote_update = [&, c](uint16_t sem, uint32_t add, double t) {
      if (opts.timeline || opts.trace) {  // --explain, --profile, --trace: the k-th signal of core c on sem is
        const uint32_t k = ++signals_sent[{c, sem}];  // its barrier number k
        out.signals.push_back(RunResult::Signal{uint32_t(c), sem, k, t - target->core_barrier_ns, t});
      }
      for (size_t d = 0; d < n; ++d)
        if (d != c) remote.push(Remote{t, seq++, d, sem, add, false});
    };
    s[c]->remote_arrival = [&, c](uint16_t sem, int32_t k, double t) {
      for (size_t d = 0; d < n; ++d)
        if (d != c) remote.push(Remote{t, seq++, d, sem, uint32_t(k), true});
    };
    s[c]->core = uint32_t(c);
    s[c]->cores = uint32_t(n);
    s[c]->mailbox = &m.mailbox;
  }
  uint64_t total_instructions = 0;
  for (const auto& c : ctx)
    for (const auto& stream : c->program.streams) total_instructions += stream.size();
  uint32_t steps = 0;
  auto step = [&](size_t c) {
    if (opts.progress && (steps & 4095) == 4095) {
      uint64_t issued = 0;
      for (size_t d = 0; d < n; ++d) issued += s[d]->issued();
      opts.progress(issued, total_instructions);
    }
    ++steps;
    ctx[c]->poll_interrupt();
    s[c]->step();
  };
  const double inf = std::numeric_limits<double>::infinity();
  try {
    for (size_t c = 0; c < n; ++c) s[c]->start();
    for (;;) {
      // The core with the earliest event (ties: the lower core), and the earliest event of the cores before
      // and after it: it keeps stepping while its events stay first (with one core, until it is idle).
      size_t best = n;
      double bt = inf;
      for (size_t c = 0; c < n; ++c)
        if (!s[c]->idle() && s[c]->next_time() < bt) bt = s[c]->next_time(), best = c;
      if (!remote.empty() && remote.top().t < bt) {  // a signal or arrival from another core comes first
        const Remote r = remote.top();
        remote.pop();
        if (r.arrival) s[r.core]->sendrecv_arrived(r.sem, int32_t(r.add), r.t);
        else s[r.core]->external_update(r.sem, r.add, r.t);
        continue;
      }
      if (best == n) break;
      double before = inf, after = inf;
      for (size_t c = 0; c < n; ++c)
        if (c != best && !s[c]->idle()) (c < best ? before : after) = std::min(c < best ? before : after, s[c]->next_time());
      detail::Scheduler& sb = *s[best];
      do step(best);
      while (!sb.idle() && sb.next_time() < before && sb.next_time() <= after &&
             (remote.empty() || !(remote.top().t < sb.next_time())));
    }
  } catch (const Error&) {
    for (auto& x : s) x->prefer_validation_error();
    throw;
  }
  for (size_t c = 0; c < n; ++c) {
    s[c]->finish_run();
    out.total_ns = std::max(out.total_ns, out.cores[c].total_ns);
  }
  // NKISIM_SCHED_TIMING=1 in the environment prints the event loop's CPU time to stderr (bench/timing_only.py).
  if (std::getenv("NKISIM_SCHED_TIMING")) std::fprintf(stderr, "event loop %.1f ms (CPU)\n", cpu_ms() - t0);
}

}  // namespace nkisim::sim
