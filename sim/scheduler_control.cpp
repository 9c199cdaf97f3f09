// scheduler_control.cpp - the timed scheduler's sequencer path: register and branch instructions
// (sim/exec_control.h). Such an instruction issues once every earlier instruction of its stream has retired
// and its waits hold (sem_wait_reg: its register-relative wait too); it runs in the sequencer at issue
// (registers, branch decision, reg_load/reg_store memory access), occupies the sequencer for its cost, and
// applies its semaphore updates when it ends (Ev::SeqDone). A taken branch moves the stream's pc; going
// backwards re-arms the retirement flags of the loop body. docs/dynamic-loops.md has the whole design.
#include <algorithm>

#include "sim/exec_control.h"
#include "sim/scheduler_impl.h"
#include "sim/sendrecv.h"

namespace nkisim::sim::detail {
using isa::Opcode;

bool Scheduler::issue_sequencer(int e, uint32_t i, const OpInfo& op) {
  EngineState& s = eng_[size_t(e)];
  if (s.retire != s.pc) return false;  // drain first: retried when the stream's last instruction retires
  const isa::Instruction& ins = ins_at(e, i);
  if (!waits_hold(op) ||
      (ins.op == Opcode::sem_wait_reg && sems_[ins.params.sem] < sem_wait_reg_threshold(ctx_, ins))) {
    blocked_ |= 1u << e;  // retried after semaphore updates
    return false;
  }
  const bool sendrecv = ins.op == Opcode::sendrecv;
  if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) {  // signal the peer once, then wait for its signal
    if (!barrier_sent_[size_t(e)]) {
      if (cores < 2) ctx_.fail(ins, std::string(isa::info(ins.op).mnemonic) + ": needs an LNC=2 run (--lnc 2)");
      // sendrecv: src is read when this core is ready (later writers of src wait for the instruction).
      if (sendrecv && !o_.timing_only)
        mailbox->send(core, cores, ins.params.sem, ins.params.rimm, sendrecv_read_src(ctx_, ins));
      if (ctx_.checker) [[unlikely]] ctx_.checker->on_signal(ctx_, ins);  // --check hook (sim/checker.h)
      remote_update(ins.params.sem, 1, std::max(s.free_at, now_) + t_.core_barrier_ns);
      barrier_sent_[size_t(e)] = true;
    }
    if (sems_[ins.params.sem] < int64_t(ins.params.rimm)) {
      blocked_ |= 1u << e;
      return false;
    }
  }
  double start = std::max(s.free_at, now_);
  // sendrecv: its transfer runs on this core's DMA queue; it ends when that and the peer's have completed.
  if (sendrecv && remote_arrival && !sendrecv_step(e, i, start)) return false;
  if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) barrier_sent_[size_t(e)] = false;
  blocked_ &= ~(1u << e);
  const uint32_t id = gid(e, i);
  uint32_t next = i + 1;
  if (ins.op == Opcode::branch) {
    if (branch_taken(ctx_, ins)) {
      if (++taken_[size_t(e)] > o_.max_loop_iterations) loop_budget_error(ctx_, ins, o_.max_loop_iterations);
      next = uint32_t(ins.params.target);
      if (next <= i) std::fill(done_[size_t(e)].begin() + next, done_[size_t(e)].begin() + i + 1, uint8_t(0));
    }
  } else if (sendrecv) {
    if (!o_.timing_only) sendrecv_write_dst(ctx_, ins, mailbox->take(core, ins.params.sem, ins.params.rimm));
  } else {
    execute(ctx_, ins);  // also in timing-only runs: loop trip counts come from the registers
  }
  const double end = sendrecv && remote_arrival ? now_ : start + op.cost_ns;
  if (end > s.cover) {
    s.busy += end - std::max(start, s.cover);
    s.cover = end;
  }
  ++s.count;
  if (collect_) {  // one record per instruction: a loop body's records show its last iteration
    InstrTiming& rec = r_.timeline[id];
    rec.engine = uint8_t(e);
    rec.index = i;
    rec.issued = true;
    rec.ready_ns = s.free_at;
    rec.start_ns = start;
    rec.end_ns = end;
    rec.base_ns = op.cost_ns;
    rec.throttle = 1;
    rec.cause = start > s.free_at ? (op.nwait || ins.op == Opcode::sem_wait_reg ? StallCause::semaphore
                                                                                 : StallCause::dependency)
                                  : StallCause::none;
    rec.pred = s.last;
  }
  push(end, uint8_t(e), Ev::SeqDone, i);
  s.last = TimingRef{TimingRef::Instr, id};
  s.pc = s.retire = next;
  pc_pub_[size_t(e)].store(s.pc, std::memory_order_relaxed);
  s.free_at = end;
  return true;
}

void Scheduler::external_update(uint16_t sem, uint32_t add, double t) {
  now_ = std::max(now_, t);
  if (sem >= sems_.size()) throw Error("core_barrier: the other core signals semaphore " + std::to_string(sem) +
                                       " but this core's program has " + std::to_string(sems_.size()));
  sems_[sem] += add;
  if (collect_) sem_hist_[sem].push_back(SemUpdateRec{sems_[sem], now_, TimingRef{}});
  sem_changed_ = true;
  try_issue_all();
}

void Scheduler::on_sequencer_done(int e, uint32_t i) {
  const uint32_t id = gid(e, i);
  if (ctx_.checker) [[unlikely]] ctx_.checker->on_release(ctx_, ins_at(e, i));  // --check hook (sim/checker.h)
  apply_updates(ops_[id], TimingRef{TimingRef::Instr, id});
  if (collect_) r_.timeline[id].retire_ns = now_;
  last_ = std::max(last_, now_);
  try_issue(e);
  try_issue_all();
}

}  // namespace nkisim::sim::detail
