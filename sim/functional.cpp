// functional.cpp - functional mode (nki-sim --functional, docs/lnc.md): the numerics of every core of the run
// without the timing model. Every engine of every core executes its stream in order as far as its semaphore
// waits allow, the engines taking turns (one instruction each per sweep), and DMAs complete at their trigger;
// sweeps go over the cores in order. A core_barrier or sendrecv
// first signals the peers' semaphore once (a sendrecv also hands over its src bytes), then proceeds when its own
// semaphore holds the peer's signal (a sendrecv then writes the peer's bytes into dst). A race-free program gets
// the numerics of the timed run.
#include <sstream>

#include "sim/cost.h"
#include "sim/exec_control.h"
#include "sim/machine.h"
#include "sim/sendrecv.h"

namespace nkisim::sim {

namespace {
constexpr int kBurst = 1;
}  // namespace

void run_functional(Machine& m, const Options& opts, std::span<Result> results) {
  const size_t n = m.size();
  struct Core {
    std::vector<int64_t> sems;
    std::array<size_t, isa::kNumEngines> pc{};
    std::array<uint64_t, isa::kNumEngines> taken{};  // taken branches per engine (Options::max_loop_iterations)
    std::array<bool, isa::kNumEngines> sent{};  // the engine's pending core_barrier/sendrecv has signalled
  };
  std::vector<Core> cores(n);
  uint64_t total = 0, executed = 0;
  for (size_t c = 0; c < n; ++c) {
    cores[c].sems.assign(m.cores[c]->program.num_semaphores, 0);
    for (const auto& stream : m.cores[c]->program.streams) total += stream.size();
  }
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t c = 0; c < n; ++c) {
      ExecContext& cx = *m.cores[c];
      Core& k = cores[c];
      for (int e = 0; e < isa::kNumEngines; ++e) {
        const auto& stream = cx.program.streams[size_t(e)];
        // At most kBurst instructions per engine per sweep, round robin: an engine that could run far ahead (a
        // DMA queue loading every buffer of a rotating pool) would leave its tiles in memory the host's caches
        // have dropped by the time the engines that use them run (bench case f: 0.123 -> 0.116 s simulate).
        for (int burst = 0; burst < kBurst && k.pc[size_t(e)] < stream.size(); ++burst) {
          const isa::Instruction& ins = stream[k.pc[size_t(e)]];
          cx.poll_interrupt();
          bool ok = true;
          for (const isa::SemWait& w : ins.waits) ok = ok && k.sems[w.sem] >= int64_t(w.value);
          if (ins.op == isa::Opcode::sem_wait_reg) ok = ok && k.sems[ins.params.sem] >= sem_wait_reg_threshold(cx, ins);
          if (!ok) break;
          size_t next = k.pc[size_t(e)] + 1;
          if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) {
            const bool sendrecv = ins.op == isa::Opcode::sendrecv;
            if (!k.sent[size_t(e)]) {
              if (n < 2) cx.fail(ins, std::string(isa::info(ins.op).mnemonic) + ": needs an LNC=2 run (--lnc 2)");
              k.sent[size_t(e)] = true;
              std::vector<uint8_t> bytes;
              if (sendrecv) bytes = sendrecv_read_src(cx, ins);
              if (cx.checker) [[unlikely]] cx.checker->on_signal(cx, ins);  // --check hook (sim/checker.h)
              for (size_t d = 0; d < n; ++d) {
                if (d == c) continue;
                if (ins.params.sem >= cores[d].sems.size())
                  cx.fail(ins, std::string(isa::info(ins.op).mnemonic) + ": the other core has no semaphore " +
                                   std::to_string(ins.params.sem));
                cores[d].sems[ins.params.sem] += 1;
              }
              if (sendrecv) m.mailbox.send(c, n, ins.params.sem, ins.params.rimm, bytes);
              progress = true;
            }
            if (k.sems[ins.params.sem] < int64_t(ins.params.rimm)) break;
            k.sent[size_t(e)] = false;
            if (sendrecv) sendrecv_write_dst(cx, ins, m.mailbox.take(c, ins.params.sem, ins.params.rimm));
          } else if (ins.op == isa::Opcode::branch) {
            if (branch_taken(cx, ins)) {
              if (++k.taken[size_t(e)] > opts.max_loop_iterations)
                loop_budget_error(cx, ins, opts.max_loop_iterations);
              next = size_t(ins.params.target);
            }
          } else {
            execute(cx, ins);
          }
          if (cx.checker) [[unlikely]] cx.checker->on_release(cx, ins);  // --check hook (sim/checker.h)
          for (const isa::SemUpdate& u : ins.updates) k.sems[u.sem] += u.add;
          k.pc[size_t(e)] = next;
          progress = true;
          if (opts.progress && (++executed & 4095) == 0) opts.progress(executed, total);
        }
      }
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const ExecContext& cx = *m.cores[c];
    const Core& k = cores[c];
    for (int e = 0; e < isa::kNumEngines; ++e) {
      if (k.pc[size_t(e)] >= cx.program.streams[size_t(e)].size()) continue;
      const isa::Instruction& ins = cx.program.streams[size_t(e)][k.pc[size_t(e)]];
      auto stuck = [&](int64_t sem, int64_t want) {
        std::ostringstream os;
        os << "deadlock: ";
        if (n > 1) os << "core " << c << "'s ";
        os << isa::engine_name(isa::Engine(e)) << " waits for semaphore " << sem << " >= " << want << " (value is "
           << k.sems[size_t(sem)] << ")";
        throw_deadlock(cx, ins, os.str(), uint16_t(sem), k.pc);  // synccheck (sim/check_sync.cpp)
      };
      if (ins.op == isa::Opcode::sem_wait_reg && k.sems[ins.params.sem] < sem_wait_reg_threshold(cx, ins))
        stuck(ins.params.sem, sem_wait_reg_threshold(cx, ins));
      for (const isa::SemWait& w : ins.waits)
        if (k.sems[w.sem] < int64_t(w.value)) stuck(w.sem, w.value);
      if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE))
        stuck(ins.params.sem, ins.params.rimm);  // the peer never answered
    }
    Result& r = results[c];
    const isa::Program& p = cx.program;
    r.mode = "functional";
    r.instructions = p.num_instructions();
    for (int e = 0; e < isa::kNumEngines; ++e)
      r.engines[std::string(isa::engine_name(isa::Engine(e)))] = EngineStats{0, p.streams[size_t(e)].size()};
    uint64_t transfers = 0;
    for (const auto& s : p.streams)
      for (const isa::Instruction& ins : s) transfers += isa::has_trait(ins.op, isa::Trait::DMA);
    r.engines["dma"] = EngineStats{0, transfers};
    r.dma_transfers = transfers;
  }
}

}  // namespace nkisim::sim
