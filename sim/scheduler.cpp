// scheduler.cpp - discrete-event timing of the five engine streams, the DMA queues and the DMA engines.
//
// Model (issue "first timing model"; every number comes from the TargetDesc via sim/cost.cpp):
// * Engine e runs streams[e] in order. An instruction starts when the engine is free and all its waits
//   hold (sem >= value); it occupies the engine for engine_ns(). Non-DMA instructions apply their data
//   effect and semaphore updates at completion.
// * A DMA instruction occupies its engine for the trigger time, then its transfer joins DMA queue
//   params.dma_queue (FIFO). The transfer at the head of a queue starts moving data dma_fixed_ns after
//   reaching the head, on the DMA engines dma_transfer_plan() assigns; an engine busy with an earlier
//   transfer delays its share. The transfer completes when its last share ends: then its data effect and
//   semaphore updates apply and the next transfer of the queue reaches the head.
// * Events are processed in time order; ties by issuing engine index, then program order, then event
//   kind, so runs are deterministic and effects land in simulated-time order (DESIGN decision 4).
#include "sim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <sstream>

#include "sim/cost.h"

namespace nkisim::sim {
using isa::Engine;
using isa::Instruction;

void validate_program(const ExecContext& ctx) {
  const isa::Program& p = ctx.program;
  // Semaphore indices are 16-bit (isa::SemWait); more counters than that cannot be named.
  if (p.num_semaphores > 65536)
    throw Error("program declares " + std::to_string(p.num_semaphores) + " semaphores; at most 65536 can be addressed");
  for (int e = 0; e < isa::kNumEngines; ++e) {
    for (const Instruction& ins : p.streams[e]) {
      if (size_t(ins.op) >= size_t(isa::kNumOpcodes)) ctx.fail(ins, "invalid opcode " + std::to_string(int(ins.op)));
      const isa::InstrInfo& inf = isa::info(ins.op);
      if (!(inf.engines & isa::engine_bit(Engine(e))))
        ctx.fail(ins, std::string(inf.mnemonic) + ": cannot run on the " + std::string(isa::engine_name(Engine(e))) +
                          " engine");
      for (int s = 0; s < isa::kMaxOperands; ++s) ctx.check(ins, s, inf.operands[s].written);
      for (const isa::SemWait& w : ins.waits)
        if (w.sem >= p.num_semaphores)
          ctx.fail(ins, std::string(inf.mnemonic) + ": waits on semaphore " + std::to_string(w.sem) +
                            " but the program has " + std::to_string(p.num_semaphores));
      for (const isa::SemUpdate& u : ins.updates)
        if (u.sem >= p.num_semaphores)
          ctx.fail(ins, std::string(inf.mnemonic) + ": updates semaphore " + std::to_string(u.sem) +
                            " but the program has " + std::to_string(p.num_semaphores));
      if (cost_class(ins.op) == isa::CostClass::dma && ins.params.dma_queue >= ctx.target.dma_queues)
        ctx.fail(ins, std::string(inf.mnemonic) + ": DMA queue " + std::to_string(ins.params.dma_queue) +
                          " out of range [0, " + std::to_string(int(ctx.target.dma_queues)) + ")");
    }
  }
}

namespace {

enum class Ev : uint8_t { Complete, TriggerDone, DmaStart, DmaDone };

struct Event {
  double t;
  uint8_t engine;   // issuing engine
  uint32_t index;   // position in its stream
  Ev kind;
  uint32_t transfer;
  bool operator>(const Event& o) const {
    if (t != o.t) return t > o.t;
    if (engine != o.engine) return engine > o.engine;
    if (index != o.index) return index > o.index;
    return kind > o.kind;
  }
};

struct Transfer {
  const Instruction* ins;
  uint8_t engine;
  uint32_t index;
  uint16_t queue;
  double head_ns = 0;
};

struct EngineState {
  size_t pc = 0;
  bool busy = false;
  double start = 0, dur = 0;  // of the instruction in flight
};

// The operands as isa::print_instruction prints them: "dst=<ap> src=<ap>".
std::string operands_text(const Instruction& ins) {
  const isa::InstrInfo& inf = isa::info(ins.op);
  std::string s;
  for (int k = 0; k < inf.num_operands; ++k) {
    if (!ins.operands[k].present()) continue;
    if (!s.empty()) s += ' ';
    s += inf.operands[k].name;
    s += '=';
    s += isa::to_string(ins.operands[k]);
  }
  return s;
}

class Scheduler {
 public:
  Scheduler(ExecContext& ctx, bool trace, Result& r)
      : ctx_(ctx), p_(ctx.program), t_(ctx.target), trace_(trace), r_(r),
        sems_(p_.num_semaphores, 0), queues_(size_t(std::max(1.0, t_.dma_queues))),
        dma_free_(size_t(std::max(1.0, t_.dma_engines)), 0.0) {}

  void run() {
    for (int e = 0; e < isa::kNumEngines; ++e) try_start(e, 0.0);
    while (!events_.empty()) {
      Event ev = events_.top();
      events_.pop();
      now_ = ev.t;
      switch (ev.kind) {
        case Ev::Complete: on_complete(ev); break;
        case Ev::TriggerDone: on_trigger_done(ev); break;
        case Ev::DmaStart: on_dma_start(ev); break;
        case Ev::DmaDone: on_dma_done(ev); break;
      }
    }
    check_deadlock();
    finish();
  }

 private:
  const Instruction& ins_at(int e, uint32_t i) const { return p_.streams[e][i]; }

  void push(double t, int e, uint32_t index, Ev kind, uint32_t transfer = 0) {
    events_.push(Event{t, uint8_t(e), index, kind, transfer});
  }

  bool waits_hold(const Instruction& ins) const {
    for (const isa::SemWait& w : ins.waits)
      if (sems_[w.sem] < int64_t(w.value)) return false;
    return true;
  }

  void try_start(int e, double now) {
    EngineState& s = eng_[e];
    if (s.busy || s.pc >= p_.streams[e].size()) return;
    const Instruction& ins = ins_at(e, uint32_t(s.pc));
    if (!waits_hold(ins)) return;
    s.busy = true;
    s.start = now;
    s.dur = engine_ns(ins, Engine(e), t_);
    const bool dma = cost_class(ins.op) == isa::CostClass::dma;
    push(now + s.dur, e, uint32_t(s.pc), dma ? Ev::TriggerDone : Ev::Complete);
  }
  void try_start_all() {
    for (int e = 0; e < isa::kNumEngines; ++e) try_start(e, now_);
  }

  void apply_updates(const Instruction& ins) {
    for (const isa::SemUpdate& u : ins.updates) sems_[u.sem] += u.add;
  }

  // The engine finished instruction ev.index (its data effect, if any, is applied by the caller).
  void retire(const Event& ev) {
    EngineState& s = eng_[ev.engine];
    const Instruction& ins = ins_at(ev.engine, ev.index);
    busy_[ev.engine] += s.dur;
    ++count_[ev.engine];
    if (trace_) {
      std::string_view name = isa::engine_name(Engine(ev.engine));
      add_event(std::string(name), std::string(name), ins, s.start, s.dur);
    }
    s.busy = false;
    ++s.pc;
    last_ = std::max(last_, now_);
  }

  void on_complete(const Event& ev) {
    const Instruction& ins = ins_at(ev.engine, ev.index);
    execute(ctx_, ins);
    apply_updates(ins);
    retire(ev);
    try_start_all();
  }

  void on_trigger_done(const Event& ev) {
    const Instruction& ins = ins_at(ev.engine, ev.index);
    uint32_t id = uint32_t(transfers_.size());
    transfers_.push_back(Transfer{&ins, ev.engine, ev.index, ins.params.dma_queue});
    auto& q = queues_[ins.params.dma_queue];
    q.push_back(id);
    if (q.size() == 1) reach_head(id);
    retire(ev);
    try_start(ev.engine, now_);
  }

  void reach_head(uint32_t id) {
    Transfer& x = transfers_[id];
    x.head_ns = now_;
    push(now_ + t_.dma_fixed_ns, x.engine, x.index, Ev::DmaStart, id);
  }

  void on_dma_start(const Event& ev) {
    Transfer& x = transfers_[ev.transfer];
    dma_transfer_plan(*x.ins, t_, plan_);
    double done = now_;
    for (const DmaShare& sh : plan_) {
      double start = std::max(now_, dma_free_[sh.engine]);
      double end = start + sh.ns;
      dma_free_[sh.engine] = end;
      dma_intervals_.emplace_back(start, end);
      done = std::max(done, end);
      if (trace_) add_event("dma.e" + std::to_string(sh.engine), "dma", *x.ins, start, sh.ns);
    }
    push(done, x.engine, x.index, Ev::DmaDone, ev.transfer);
  }

  void on_dma_done(const Event& ev) {
    Transfer& x = transfers_[ev.transfer];
    execute(ctx_, *x.ins);
    apply_updates(*x.ins);
    ++dma_transfers_;
    last_ = std::max(last_, now_);
    if (trace_) add_event("dma.q" + std::to_string(x.queue), "dma", *x.ins, x.head_ns, now_ - x.head_ns);
    auto& q = queues_[x.queue];
    q.pop_front();
    if (!q.empty()) reach_head(q.front());
    try_start_all();
  }

  void check_deadlock() const {
    for (int e = 0; e < isa::kNumEngines; ++e) {
      const EngineState& s = eng_[e];
      if (s.pc >= p_.streams[e].size()) continue;
      const Instruction& ins = ins_at(e, uint32_t(s.pc));
      for (const isa::SemWait& w : ins.waits) {
        if (sems_[w.sem] >= int64_t(w.value)) continue;
        std::ostringstream os;
        os << "deadlock: " << isa::engine_name(Engine(e)) << " waits for semaphore " << w.sem << " >= " << w.value
           << " (value is " << sems_[w.sem] << ")";
        ctx_.fail(ins, os.str());
      }
      ctx_.fail(ins, "deadlock: " + std::string(isa::engine_name(Engine(e))) + " stopped");  // unreachable
    }
  }

  void add_event(std::string track, std::string cat, const Instruction& ins, double start, double dur) {
    TraceEvent te;
    te.track = std::move(track);
    te.cat = std::move(cat);
    te.name = isa::info(ins.op).mnemonic;
    te.start_ns = start;
    te.dur_ns = dur;
    te.operands = operands_text(ins);
    if (auto loc = ctx_.location(ins)) te.source_location = loc->file + ":" + std::to_string(loc->line);
    r_.trace.push_back(std::move(te));
  }

  void finish() {
    r_.total_ns = last_;
    // Cycles in the profiler's base clock (machine.md §3: Trn1 1.4 GHz, Trn2 1.2 GHz).
    r_.total_cycles = uint64_t(std::llround(last_ * t_.profiler_ghz));
    r_.instructions = p_.num_instructions();
    for (int e = 0; e < isa::kNumEngines; ++e)
      r_.engines[std::string(isa::engine_name(Engine(e)))] = EngineStats{busy_[e], count_[e]};
    // DMA busy time: union of the intervals in which any DMA engine moves data.
    std::sort(dma_intervals_.begin(), dma_intervals_.end());
    double busy = 0, cur0 = 0, cur1 = -1;
    for (auto [a, b] : dma_intervals_) {
      if (a > cur1) {
        if (cur1 > cur0) busy += cur1 - cur0;
        cur0 = a;
        cur1 = b;
      } else {
        cur1 = std::max(cur1, b);
      }
    }
    if (cur1 > cur0) busy += cur1 - cur0;
    r_.engines["dma"] = EngineStats{busy, dma_transfers_};
    if (trace_)
      std::stable_sort(r_.trace.begin(), r_.trace.end(),
                       [](const TraceEvent& a, const TraceEvent& b) { return a.start_ns < b.start_ns; });
  }

  ExecContext& ctx_;
  const isa::Program& p_;
  const isa::TargetDesc& t_;
  bool trace_;
  Result& r_;
  std::vector<int64_t> sems_;
  std::vector<std::deque<uint32_t>> queues_;
  std::vector<double> dma_free_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::array<EngineState, isa::kNumEngines> eng_{};
  std::array<double, isa::kNumEngines> busy_{};
  std::array<uint64_t, isa::kNumEngines> count_{};
  std::vector<Transfer> transfers_;
  std::vector<DmaShare> plan_;
  std::vector<std::pair<double, double>> dma_intervals_;
  uint64_t dma_transfers_ = 0;
  double now_ = 0, last_ = 0;
};

}  // namespace

void run_program(ExecContext& ctx, bool trace, Result& r) { Scheduler(ctx, trace, r).run(); }

}  // namespace nkisim::sim
