// scheduler.cpp - discrete-event timing of the five engine streams: issue, semaphore waits, in-order
// retirement, timing records and stats. The model is described in docs/cost-model.md:
// * Engine e runs streams[e] in order. An instruction starts at the latest of: its engine can issue it
//   (the previous instruction ended; Tensor Engine: the previous one started and its path is free), its
//   semaphore waits hold, the results of earlier instructions of the same engine it reads are committed
//   (scheduler_pe.cpp), Tensor Engine weight / buffer constraints, and PSUM bank arbitration. It lasts
//   engine_ns() (Tensor Engine multiplies: divided by the throttling level when that is modelled).
// * An instruction's data effect and semaphore updates apply when it completes, in program order per
//   engine; a DMA trigger hands its transfer to the DMA model (scheduler_dma.cpp), whose completion
//   applies the effect and the updates.
// * Events are processed in time order; ties by unit (engines by index, then transfers, then DMA engines),
//   then id, so runs are deterministic and effects land in simulated-time order (DESIGN decision 4).
// Nothing costs anything extra when neither a trace nor a timeline is requested.
#include "sim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include "sim/exec_control.h"
#include "sim/scheduler_impl.h"

namespace nkisim::sim {
using isa::Engine;
using isa::Instruction;

std::string_view stall_cause_name(StallCause c) {
  switch (c) {
    case StallCause::none: return "engine";
    case StallCause::semaphore: return "semaphore";
    case StallCause::dependency: return "same-engine dependency";
    case StallCause::weights: return "stationary weights";
    case StallCause::weight_buffer: return "weight buffer";
    case StallCause::psum_bank: return "psum bank";
  }
  return "?";
}

namespace detail {

Scheduler::Scheduler(ExecContext& ctx, const Options& opts, Result& r)
    : ctx_(ctx), p_(ctx.program), t_(ctx.target), o_(opts), r_(r), collect_(opts.trace || opts.timeline),
      execute_(!opts.timing_only), sems_(p_.num_semaphores, 0) {
  uint32_t b = 0;
  for (int e = 0; e < isa::kNumEngines; ++e) {
    base_[size_t(e)] = b;
    b += uint32_t(p_.streams[size_t(e)].size());
    done_[size_t(e)].assign(p_.streams[size_t(e)].size(), 0);
  }
  r_.instr_base = base_;
  if (collect_) {
    sem_hist_.resize(p_.num_semaphores);
    r_.timeline.resize(b);
    // Every record names its own instruction, also one that never issues (a zero-trip loop body): reports skip
    // those by `issued`, and none reads past its stream.
    for (int e = 0; e < isa::kNumEngines; ++e)
      for (uint32_t i = 0; i < p_.streams[size_t(e)].size(); ++i) {
        r_.timeline[base_[size_t(e)] + i].engine = uint8_t(e);
        r_.timeline[base_[size_t(e)] + i].index = i;
      }
  }
  // The target's DMA queues and, last, the ring of the collective DMAs (sendrecv, sim/scheduler_sendrecv.cpp).
  const size_t nq = size_t(std::max(1.0, t_.dma_queues)) + 1;
  if (t_.dma_engines > 255 - kDmaUnit0 || t_.dma_queues > 65535)
    throw Error("target parameters: at most " + std::to_string(255 - kDmaUnit0) + " DMA engines and 65535 DMA queues");
  dma_.resize(size_t(std::max(1.0, t_.dma_engines)));
  for (DmaEngine& d : dma_) d.cursor.assign(nq, 0);
  dma_fifo_.resize(nq);
  dge_free_.assign(size_t(std::max(0.0, t_.dma_dge_blocks)), 0.0);
  queue_done_.assign(nq, 0.0);
  init_handoff();
  start_prepare();
}

void Scheduler::prefer_validation_error() {
  if (prep_thread_.joinable()) prep_thread_.join();
  if (prep_failed_.load(std::memory_order_acquire)) throw_validation_error();
}

uint64_t Scheduler::issued() const {
  uint64_t n = 0;
  for (const EngineState& s : eng_) n += s.count;
  return n;
}

void Scheduler::start() {
  lockstep_init();
  for (int e = 0; e < isa::kNumEngines; ++e) try_issue(e);
}

void Scheduler::finish_run() {
  finish_prepare();
  check_deadlock();
  finish();
}

void Scheduler::step() {
  const Event ev = events_.top();
  events_.pop();
  now_ = ev.t;
  switch (ev.kind) {
    case Ev::Complete: on_complete(ev.unit, ev.id); break;
    case Ev::TriggerDone:
      dma_submit(ev.unit, ev.id);
      on_complete(ev.unit, ev.id);
      break;
    case Ev::EngineFree:
      eng_[ev.unit].free_event = false;
      try_issue(ev.unit);
      break;
    case Ev::DmaEligible: on_dma_eligible(ev.id); break;
    case Ev::SeqDone: on_sequencer_done(ev.unit, ev.id); break;
    case Ev::DmaShareDone:
      if (ev.mask) {
        on_shares_done(ev.mask);
      } else {  // a DMA engine beyond the mask width
        on_share_done(uint32_t(ev.unit - kDmaUnit0));
        flush_shares();
      }
      break;
  }
}

// The wait that held last and the update that satisfied it (timeline mode).
void Scheduler::semaphore_cause(const OpInfo& op, StartCalc& c) const {
  double latest = -1;
  TimingRef who;
  for (uint32_t k = 0; k < op.nwait; ++k) {
    const isa::SemWait& w = op.sems[k];
    const auto& h = sem_hist_[w.sem];
    auto it = std::lower_bound(h.begin(), h.end(), int64_t(w.value),
                               [](const SemUpdateRec& u, int64_t v) { return u.value < v; });
    if (it == h.end()) continue;  // (only a zero wait can hold without an update)
    if (it->t > latest) {
      latest = it->t;
      who = it->who;
      c.sem = w.sem;
      c.sem_value = w.value;
    }
  }
  if (latest >= 0 && latest > c.t) {
    c.t = latest;
    c.cause = StallCause::semaphore;
    c.pred = who;
  }
}

void Scheduler::try_issue(int e) {
  EngineState& s = eng_[size_t(e)];
  const uint32_t n = uint32_t(p_.streams[size_t(e)].size());
  while (s.pc < n && !s.free_event && s.free_at <= now_) {
    const uint32_t i = s.pc;
    ensure_ready(e, i);
    const uint32_t id = gid(e, i);
    const OpInfo& op = ops_[id];
    if (op.cls == OpClass::sequencer) {  // registers and branches (scheduler_control.cpp)
      if (!issue_sequencer(e, i, op)) return;
      continue;
    }
    if (const isa::SemWait* w = failing_wait(op)) {  // retried after semaphore updates
      blocked_ |= 1u << e;
      block_pc_[size_t(e)] = i;
      block_wait_[size_t(e)] = *w;
      return;
    }
    blocked_ &= ~(1u << e);
    const PeRole role = op.role;
    const bool compute = op.cls == OpClass::datapath && role == PeRole::none && e != int(Engine::Sync);

    StartCalc c;
    c.t = s.free_at;
    c.pred = s.last;
    if (role != PeRole::none) pe_constraint(role, c);  // path availability (cause stays "engine")
    const double ready = c.t;
    // Waits hold now; if they did not when the engine became ready, the last update released it.
    if (now_ > s.free_at && op.nwait) {
      if (collect_) {
        StartCalc w = c;
        semaphore_cause(op, w);
        if (now_ > c.t) c = w;
      } else {
        c.raise(now_, StallCause::semaphore, TimingRef{});
      }
    }
    if (role == PeRole::multiply_moving && pe_weights_pending_)
      c.raise(pe_weights_ready_, StallCause::weights, pe_last_ls_);
    if (role == PeRole::load_stationary && t_.pe_background_ls != 0 && !pe_weights_pending_)
      c.raise(pe_shadow_free_, StallCause::weight_buffer, pe_last_mul_);
    // The engine is active from here: a same-engine RAW wait is the engine's own interlock, not a semaphore
    // wait, so the profiler counts it as active time (docs/cost-model.md, "Engine active time").
    double active_from = -1;
    if (compute) {
      const double before = c.t;
      hazard_constraint(e, op, c);
      if (now_ > s.free_at && op.nwait) semaphore_handoff(e, c);
      if (c.t > before) active_from = before;
      if (op.psum_mask && t_.psum_bank_conflicts != 0) psum_constraint(e, op, c);
    }

    const double start = c.t;
    if (active_from < 0) active_from = start;
    double dur = op.cost_ns, level = 1;
    if (role != PeRole::none) dur = pe_started(op, start, id, level);
    const double end = start + dur;
    // A multiply's results drain from the array after its last column (pe_drain_ns): active time, hidden under
    // the next multiply when they run back to back (docs/cost-model.md, "Engine active time").
    const double active_end = role == PeRole::multiply_moving ? end + t_.pe_drain_ns : end;
    if (active_end > s.cover) {
      s.busy += active_end - std::max(active_from, s.cover);
      s.cover = active_end;
    }
    ++s.count;
    if (compute) {
      hazard_record(e, op, end, id);
      if (op.psum_mask && t_.psum_bank_conflicts != 0) psum_record(e, op, end, id);
    }
    if (collect_) {
      InstrTiming& rec = r_.timeline[id];
      rec.engine = uint8_t(e);
      rec.index = i;
      rec.issued = true;
      rec.ready_ns = ready;
      rec.start_ns = start;
      rec.end_ns = end;
      rec.base_ns = op.cost_ns;
      rec.throttle = level;
      rec.cause = c.cause;
      rec.pred = c.pred;
      rec.sem = c.sem;
      rec.sem_value = c.sem_value;
      for (uint32_t k = 0; k < op.nwait; ++k) {
        const auto& h = sem_hist_[op.sems[k].sem];
        auto it = std::lower_bound(h.begin(), h.end(), int64_t(op.sems[k].value),
                                   [](const SemUpdateRec& u, int64_t v) { return u.value < v; });
        if (it != h.end()) r_.sem_edges.emplace_back(id, it->who);
      }
    }
    push(end, uint8_t(e), op.cls == OpClass::dma ? Ev::TriggerDone : Ev::Complete, i);
    s.last = TimingRef{TimingRef::Instr, id};
    ++s.pc;
    pc_pub_[size_t(e)].store(s.pc, std::memory_order_relaxed);
    if (role == PeRole::none) {
      s.free_at = end;
      continue;  // loops only when the instruction took no time
    }
    // In-order issue: the next Tensor instruction may issue once this one has started.
    s.free_at = start;
    if (start > now_) {
      s.free_event = true;
      push(start, uint8_t(e), Ev::EngineFree, i);
      return;
    }
  }
}

// Engines waiting on a semaphore, after updates (an engine that is merely busy has an event of its own).
void Scheduler::try_issue_all() {
  if (!sem_changed_) return;
  sem_changed_ = false;
  for (uint32_t m = blocked_; m; m &= m - 1) {
    const int e = __builtin_ctz(m);
    const isa::SemWait& w = block_wait_[size_t(e)];
    if (block_pc_[size_t(e)] == eng_[size_t(e)].pc && sems_[w.sem] < int64_t(w.value)) continue;  // still blocked
    try_issue(e);
  }
}

void Scheduler::on_complete(int e, uint32_t i) {
  done_[size_t(e)][i] = 1;
  retire_in_order(e);
  try_issue(e);
  try_issue_all();
}

// Effects and semaphore updates in program order (the Tensor Engine can finish a background
// LoadStationary before the multiply issued ahead of it).
void Scheduler::retire_in_order(int e) {
  EngineState& s = eng_[size_t(e)];
  while (s.retire < s.pc && done_[size_t(e)][s.retire]) {
    const uint32_t id = gid(e, s.retire);
    const OpInfo& op = ops_[id];
    if (op.cls != OpClass::dma) {  // a DMA's effect and updates come with its transfer
      if (execute_) {
        // The executor of the next instruction reads its (large) isa::Instruction, which the preparation
        // pass touched long ago: fetch its opcode, first operand slots and parameters while this one runs.
        if (s.retire + 1 < p_.streams[size_t(e)].size()) {
          const char* next = reinterpret_cast<const char*>(&ins_at(e, s.retire + 1));
          for (size_t b = 0; b < offsetof(Instruction, operands) + 4 * sizeof(isa::AccessPattern); b += 64)
            __builtin_prefetch(next + b);
          for (size_t b = offsetof(Instruction, params); b < offsetof(Instruction, waits); b += 64)
            __builtin_prefetch(next + b);
        }
        execute(ctx_, ins_at(e, s.retire));
      }
      if (ctx_.checker) [[unlikely]] ctx_.checker->on_release(ctx_, ins_at(e, s.retire));  // --check hook
      apply_updates(op, TimingRef{TimingRef::Instr, id});
      if (collect_) r_.timeline[id].retire_ns = now_;
    }
    last_ = std::max(last_, now_);
    ++s.retire;
  }
}

void Scheduler::apply_updates(const OpInfo& op, TimingRef who) {
  sem_changed_ = sem_changed_ || op.nupd;
  for (uint32_t k = op.nwait; k < uint32_t(op.nwait) + op.nupd; ++k) {
    const isa::SemWait& u = op.sems[k];
    sems_[u.sem] += u.value;
    if (collect_) sem_hist_[u.sem].push_back(SemUpdateRec{sems_[u.sem], now_, who});
  }
}

void Scheduler::check_deadlock() const {
  std::array<size_t, isa::kNumEngines> reached{};  // synccheck: how far each engine got (sim/check_sync.cpp)
  for (int e = 0; e < isa::kNumEngines; ++e) reached[size_t(e)] = eng_[size_t(e)].pc;
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const EngineState& s = eng_[size_t(e)];
    if (s.pc >= p_.streams[size_t(e)].size()) continue;
    const Instruction& ins = ins_at(e, s.pc);
    if (ins.op == isa::Opcode::sem_wait_reg && sems_[ins.params.sem] < sem_wait_reg_threshold(ctx_, ins)) {
      std::ostringstream os;
      os << "deadlock: " << isa::engine_name(Engine(e)) << " waits for semaphore " << ins.params.sem
         << " >= " << sem_wait_reg_threshold(ctx_, ins) << " (value is " << sems_[ins.params.sem] << ")";
      throw_deadlock(ctx_, ins, os.str(), ins.params.sem, reached);
    }
    if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE) &&
        sems_[ins.params.sem] < int64_t(ins.params.rimm)) {
      std::ostringstream os;
      os << "deadlock: " << isa::engine_name(Engine(e)) << " waits at " << isa::info(ins.op).mnemonic
         << " for the other core (semaphore "
         << ins.params.sem << " >= " << ins.params.rimm << ", value is " << sems_[ins.params.sem] << ")";
      ctx_.fail(ins, os.str());
    }
    for (const isa::SemWait& w : ins.waits) {
      if (sems_[w.sem] >= int64_t(w.value)) continue;
      std::ostringstream os;
      os << "deadlock: " << isa::engine_name(Engine(e)) << " waits for semaphore " << w.sem << " >= " << w.value
         << " (value is " << sems_[w.sem] << ")";
      throw_deadlock(ctx_, ins, os.str(), w.sem, reached);
    }
    ctx_.fail(ins, "deadlock: " + std::string(isa::engine_name(Engine(e))) + " stopped");  // unreachable
  }
}

void Scheduler::finish() {
  r_.mode = o_.timing_only ? "timing-only" : "timed";
  r_.total_ns = last_;
  r_.device_ns = t_.kernel_launch_ns + last_ + t_.kernel_teardown_ns;
  // Cycles in the profiler's base clock (machine.md §3: Trn1 1.4 GHz, Trn2 1.2 GHz).
  r_.total_cycles = uint64_t(std::llround(last_ * t_.profiler_ghz));
  r_.instructions = p_.num_instructions();
  for (int e = 0; e < isa::kNumEngines; ++e) {  // a last multiply's drain (pe_drain_ns) ends with the run
    const EngineState& s = eng_[size_t(e)];
    r_.engines[std::string(isa::engine_name(Engine(e)))] = EngineStats{s.busy - std::max(0.0, s.cover - last_), s.count};
  }
  // DMA busy time: union of the intervals in which any DMA engine moves data.
  r_.dma_transfers = transfers_.size();
  r_.engines["dma"] = EngineStats{dma_busy_, r_.dma_transfers};
  // Profiler summary metrics (machine.md §13): MFU = 2 MACs / (2 x PE count x clock x time); MBU = HBM
  // bytes / time / one stack's bandwidth.
  const double pes = t_.pe_rows * t_.pe_cols;
  if (last_ > 0 && pes > 0 && t_.tensor_ghz > 0)
    r_.mfu_estimated_percent = 100.0 * r_.pe_macs / (pes * t_.tensor_ghz * last_);
  if (last_ > 0 && t_.hbm_peak_bytes_per_ns > 0)
    r_.mbu_estimated_percent = 100.0 * (r_.hbm_read_bytes + r_.hbm_write_bytes) / last_ / t_.hbm_peak_bytes_per_ns;
  r_.pe_average_throttle = pe_thr_time_ > 0 ? pe_thr_weighted_ / pe_thr_time_ : 1.0;
  if (o_.trace) build_trace();
}

}  // namespace detail

}  // namespace nkisim::sim
