// scheduler_dma.cpp - DMA transfers (machine.md §2, §11; docs/cost-model.md "DMA"):
// * When its trigger completes, a transfer joins queue `dma_queue`, which every DMA engine serves: the
//   transfer's rows are split over the engines (dma_layout) and each engine handles its share, also
//   engines that move nothing: each engine reports completion (a semaphore write) for every transfer (DMAOV).
// * It becomes eligible dma_fixed_ns after the trigger (descriptor + synchronisation + semaphore-to-start,
//   DMABW), after hardware-DGE descriptor generation (dma_hwdge_ns on one of dma_dge_blocks blocks) when
//   the DGE mode is hwdge. The latency of queued transfers overlaps (descriptors are prefetched).
// * Each DMA engine moves one share at a time, FIFO within a queue, round-robin between queues (v2/v3;
//   v4's QoS priorities are not modelled), and starts at most one share per dma_share_interval_ns (its
//   transfer rate: small transfers back to back wait for it). A share takes
//   buffers x dma_buffer_overhead_ns + bytes / rate, at least buffers x dma_buffer_min_ns (dma_buffers_ns), where rate is
//   dma_engine_bytes_per_ns, lowered to an equal split of hbm_bytes_per_ns between the engines moving HBM
//   data (those busy when the share starts, at least the engines of this transfer) when that is the
//   bottleneck.
// * A transfer's engines start dma_engine_stagger_ns apart, the last one at its eligibility: the shares are
//   timed together there, and the DMA active time and the transfer's data start count from the first engine.
// * An engine with nothing to move for a transfer reports it once the transfer is at the head of the queue
//   there. The transfer completes when every engine has reported: its effect and semaphore updates apply.
#include <algorithm>

#include "sim/scheduler_impl.h"

namespace nkisim::sim::detail {
using isa::Instruction;

void Scheduler::dma_submit(int e, uint32_t i) {
  const DmaPlan& plan = *ops_[gid(e, i)].plan;
  int32_t reg = 0;
  if (plan.reg_offset && plan.reg < ctx_.regs[size_t(e)].size())
    reg = ctx_.regs[size_t(e)][plan.reg];  // registers are read at the trigger
  double ready = now_;
  if (plan.dge == DgeMode::hwdge && t_.dma_hwdge_ns > 0 && !dge_free_.empty()) {
    auto it = std::min_element(dge_free_.begin(), dge_free_.end());
    *it = std::max(*it, now_) + t_.dma_hwdge_ns;
    ready = *it;
  }
  enqueue_transfer(e, i, plan, now_, ready + t_.dma_fixed_ns, uint8_t(plan.dge), false, reg);
  if (ctx_.checker) [[unlikely]] ctx_.checker->on_trigger(ctx_, ins_at(e, i));  // --check hook (sim/checker.h)
}

uint32_t Scheduler::enqueue_transfer(int e, uint32_t i, const DmaPlan& plan, double enqueue, double eligible,
                                     uint8_t dge, bool sendrecv, int32_t reg) {
  const uint32_t id = gid(e, i);
  const uint32_t x = uint32_t(transfers_.size());
  if (x == transfers_.capacity() && x >= 4096) grow_transfers();
  Transfer& tr = transfers_.emplace_back();
  tr.gid = id;
  tr.engine = uint8_t(e);
  tr.index = i;
  tr.plan = &plan;
  tr.rows = plan.rows;
  tr.queue = plan.queue;
  tr.enqueue = enqueue;
  tr.pred = TimingRef{TimingRef::Instr, id};
  tr.reg = reg;
  tr.sendrecv = sendrecv;
  tr.eligible = eligible;
  tr.nshares = plan.engines_used;
  tr.pending = uint16_t(dma_.size());
  r_.dma_bytes += plan.bytes;
  r_.hbm_read_bytes += plan.hbm_read;
  r_.hbm_write_bytes += plan.hbm_write;
  dma_fifo_[tr.queue].push_back(x);
  tr.even = plan.even && plan.layout.engines == dma_.size();
  if (!tr.even) {
    ++uneven_live_;
    if (lockstep_) lockstep_break();
  }
  if (lockstep_) {  // dma_[0] stands for every engine (sim/scheduler_dma_lockstep.cpp)
    dma_[0].nonempty |= uint64_t(1) << tr.queue;
  } else {
    for (uint32_t d = 0; d < dma_.size(); ++d) {
      DmaEngine& en = dma_[d];
      if (tr.queue < 64) en.nonempty |= uint64_t(1) << tr.queue;
      en.empties += d >= plan.layout.engines || plan.rows[d] == 0;
    }
  }
  if (collect_) {
    r_.timeline[id].transfer = int32_t(x);
    TransferTiming tt;
    tt.instr = id;
    tt.queue = tr.queue;
    tt.dge = dge;
    tt.enqueue_ns = enqueue;
    tt.eligible_ns = eligible;
    tt.bytes = plan.bytes;
    tt.hbm_read = plan.hbm_read;
    tt.hbm_write = plan.hbm_write;
    tt.buffers = uint32_t(plan.layout.per_row * plan.layout.rows);
    tt.engines = plan.engines_used;
    r_.transfers.push_back(tt);
  }
  push(eligible, kTransferUnit, Ev::DmaEligible, x);
  return x;
}

// The transfers so far, extrapolated to the whole program by the share of its instructions issued so far
// (exact for a program without loops that keeps its DMA ratio): one reallocation instead of a doubling series,
// each of which copies the array and first-touches new pages (~2 us per 4 KiB page on some VMs). Bounded to
// 32 times the current size; a wrong guess only costs an unused reservation or another reallocation.
void Scheduler::grow_transfers() {
  uint64_t issued = 0;
  for (const EngineState& s : eng_) issued += s.pc;
  const uint64_t n = transfers_.size(), total = std::max<uint64_t>(issued, p_.num_instructions());
  const uint64_t guess = n * total / std::max<uint64_t>(issued, 1) + n / 8;
  transfers_.reserve(size_t(std::clamp<uint64_t>(guess, 2 * n, 32 * n)));
}

// Only engines where the transfer is at the head of its queue can make progress because of it (elsewhere
// an earlier entry is ineligible or waits for a share in flight, whose events kick the engine again).
void Scheduler::on_dma_eligible(uint32_t x) {
  if (lockstep_) {
    lockstep_eligible(x);
    return;
  }
  const uint16_t q = transfers_[x].queue;
  const auto& fifo = dma_fifo_[q];
  const uint32_t* rows = transfers_[x].rows;
  const uint32_t nd = uint32_t(dma_.size());
  for (uint32_t d = 0; d < nd; ++d) {
    DmaEngine& en = dma_[d];
    if (en.cursor[q] >= fifo.size() || fifo[en.cursor[q]] != x) continue;
    // Fast path (the common case): an idle engine whose only waiting queue is q starts x's share directly.
    if (!en.busy && q < 64 && en.nonempty == (uint64_t(1) << q) && rows[d] > 0) {
      start_share(d, q, x);
      continue;
    }
    dma_kick(d);
  }
  flush_shares();
}

// Engine d: entries with nothing to move report as soon as they are eligible and at the head of their
// queue here (no share of that queue in flight on this engine); then, if the engine is idle, it starts
// the next eligible share, visiting its queues round-robin.
void Scheduler::dma_kick(uint32_t d) {
  DmaEngine& en = dma_[d];
  const size_t nq = en.cursor.size();
  const bool masked = nq <= 64;
  const uint64_t all = nq >= 64 ? ~uint64_t(0) : (uint64_t(1) << nq) - 1;
  auto head = [&](size_t q) -> uint32_t {  // the transfer at the head of queue q here, or ~0u
    const auto& fifo = dma_fifo_[q];
    return en.cursor[q] < fifo.size() ? fifo[en.cursor[q]] : ~0u;
  };
  auto advance = [&](size_t q) {
    if (++en.cursor[q] == dma_fifo_[q].size() && masked) en.nonempty &= ~(uint64_t(1) << q);
  };
  auto rows = [&](uint32_t x) { return transfers_[x].rows[d]; };
  for (uint64_t m = en.empties == 0 ? 0 : masked ? en.nonempty : all; m; m &= m - 1) {
    const size_t q = size_t(__builtin_ctzll(m));
    if (q >= nq) break;
    if (en.busy && en.busy_queue == q) continue;
    for (uint32_t x = head(q); x != ~0u && transfers_[x].eligible <= now_ && rows(x) == 0; x = head(q)) {
      advance(q);
      --en.empties;
      const Transfer& tr = transfers_[x];
      const TimingRef why = now_ > tr.eligible && en.last.kind != TimingRef::None ? en.last : tr.pred;
      en.last = TimingRef{TimingRef::Transfer, x};
      engine_reports(d, x, why);
    }
  }
  if (en.busy) return;
  // Round robin: the first queue at or after en.rr with an eligible head, wrapping around. (Heads with
  // nothing to move were consumed above, so an eligible head has a share here.)
  size_t pick = nq;
  uint32_t pick_x = ~0u;
  const uint64_t cand = masked ? en.nonempty : all;
  const uint64_t from_rr = en.rr >= 64 ? 0 : cand & (~uint64_t(0) << en.rr);
  for (uint64_t m : {from_rr, cand & ~from_rr}) {
    for (; m && pick == nq; m &= m - 1) {
      const size_t q = size_t(__builtin_ctzll(m));
      if (q >= nq) break;
      const uint32_t x = head(q);
      if (x != ~0u && transfers_[x].eligible <= now_) pick = q, pick_x = x;
    }
    if (pick != nq) break;
  }
  if (nq > 64 && pick == nq)  // beyond the mask width: a plain scan
    for (size_t k = 0; k < nq && pick == nq; ++k) {
      const size_t q = (en.rr + k) % nq;
      const uint32_t x = head(q);
      if (x != ~0u && transfers_[x].eligible <= now_) pick = q, pick_x = x;
    }
  if (pick == nq) return;  // a later DmaEligible event kicks again
  start_share(d, pick, pick_x);
}

// Engine `en` starts its share of transfer x (rows_d rows; the HBM bandwidth split between `split` engines), the
// head of queue q, now: the share's duration (kept on the transfer while rows and split repeat), the engine's
// state and the union of DMA activity. Returns the duration. start_share does it per engine, lockstep_start once
// for every engine (sim/scheduler_dma_lockstep.cpp).
double Scheduler::begin_share(DmaEngine& en, Transfer& tr, uint32_t rows_d, uint32_t split, size_t q, uint32_t x,
                              TimingRef why) {
  const DmaPlan& plan = *tr.plan;
  if (rows_d != tr.dur_rows || split != tr.dur_split) {  // else the same duration as the previous share
    double rate = t_.dma_engine_bytes_per_ns * plan.layout.rate_factor;
    if (en.hbm) rate = std::min(rate, hbm_pool_->bytes_per_ns / double(split));
    const double nrows = rows_d;
    const double bytes = nrows * plan.layout.row_bytes;
    tr.dur = dma_buffers_ns(t_, nrows * double(plan.layout.per_row), bytes, rate, nrows * plan.layout.pages_per_row);
    tr.dur_rows = rows_d;
    tr.dur_split = split;
  }
  // An engine starts at most one share per dma_share_interval_ns (its transfer rate).
  const double data_start = std::max(now_, en.last_start + t_.dma_share_interval_ns);
  en.last_start = data_start;
  const double dur = data_start - now_ + tr.dur;
  double from = now_;  // DMA activity (the union of the engines' shares) from here
  if (tr.first_start < 0) {
    // The engines that move data start one after another, dma_engine_stagger_ns apart, the last one when the
    // fixed latency has passed (the shares here start together at that time): the first one moved data
    // (engines - 1) staggers sooner, not before the trigger. Where earlier shares still run, that is covered.
    const double lead = t_.dma_engine_stagger_ns * double(tr.nshares > 1 ? tr.nshares - 1 : 0);
    tr.first_start = std::max(data_start - lead, tr.enqueue);
    from = std::min(from, tr.first_start);
  }
  en.busy = true;
  en.busy_queue = uint16_t(q);
  en.transfer = x;
  en.share_pred = why;
  if (now_ + dur > dma_cover_) {
    dma_busy_ += now_ + dur - std::max(from, dma_cover_);
    dma_cover_ = now_ + dur;
  }
  return dur;
}

// Engine d (idle) starts the share of transfer x, the head of queue q.
void Scheduler::start_share(uint32_t d, size_t q, uint32_t x) {
  DmaEngine& en = dma_[d];
  const size_t nq = en.cursor.size();
  if (++en.cursor[q] == dma_fifo_[q].size() && q < 64) en.nonempty &= ~(uint64_t(1) << q);
  en.rr = uint16_t(q + 1 == nq ? 0 : q + 1);
  Transfer& tr = transfers_[x];
  const DmaPlan& plan = *tr.plan;
  const uint32_t rows_d = tr.rows[d];
  // What delayed this share: its own eligibility (the trigger), or the work ahead of it on this engine.
  const TimingRef why = now_ > tr.eligible && en.last.kind != TimingRef::None ? en.last : tr.pred;
  en.hbm = plan.layout.hbm && t_.hbm_bytes_per_ns > 0;
  uint32_t split = 0;  // the HBM bandwidth is split between this many engines
  if (en.hbm) split = std::max<uint32_t>(++hbm_pool_->active, tr.nshares);
  const double dur = begin_share(en, tr, rows_d, split, q, x, why);
  if (o_.trace) trace_slice("dma.e" + std::to_string(d), ins_at(tr.engine, tr.index), now_, dur, tr.gid);
  stage_share(d, now_ + dur, x);
}

// Shares of one transfer that end at the same time (the common case: equal splits started together)
// share one event; the engines are then processed in index order, as separate events would be.
void Scheduler::stage_share(uint32_t d, double end, uint32_t x) {
  for (Staged& st : staged_)
    if (st.end == end && st.transfer == x && d < 16) {
      st.mask |= 1u << d;
      return;
    }
  if (d >= 16) {  // beyond the mask width: an event of its own
    events_.push(Event{end, x, 0, uint8_t(kDmaUnit0 + d), Ev::DmaShareDone});
    return;
  }
  staged_.push_back(Staged{end, x, 1u << d});
}

void Scheduler::flush_shares() {
  for (const Staged& st : staged_)
    events_.push(Event{st.end, st.transfer, uint16_t(st.mask), uint8_t(kDmaUnit0 + __builtin_ctz(st.mask)), Ev::DmaShareDone});
  staged_.clear();
}

void Scheduler::on_shares_done(uint32_t mask) {
  if (lockstep_) {
    if (mask == dma_all_mask_) {
      lockstep_done();
      flush_shares();
      return;
    }
    lockstep_break();  // (not expected: the engines of a lockstep end together)
  }
  for (uint32_t m = mask; m; m &= m - 1) on_share_done(uint32_t(__builtin_ctz(m)));
  if (lockstep_allowed_ && mask == dma_all_mask_ && uneven_live_ == 0) lockstep_rejoin();
  flush_shares();
}

void Scheduler::on_share_done(uint32_t d) {
  DmaEngine& en = dma_[d];
  en.busy = false;
  if (en.hbm) --hbm_pool_->active;
  en.hbm = false;
  en.last = TimingRef{TimingRef::Transfer, en.transfer};
  engine_reports(d, en.transfer, en.share_pred);
  if (en.nonempty || en.cursor.size() > 64) dma_kick(d);
}

void Scheduler::engine_reports(uint32_t, uint32_t x, TimingRef why) {
  Transfer& tr = transfers_[x];
  if (now_ >= tr.last_report) {
    tr.last_report = now_;
    tr.pred = why;
  }
  if (--tr.pending == 0) transfer_done(x);
}

void Scheduler::transfer_done(uint32_t x) {
  Transfer& tr = transfers_[x];
  const int e = tr.engine;
  const uint32_t i = tr.index;
  if (!tr.even) --uneven_live_;
  if (tr.sendrecv) {
    sendrecv_out_done(x);  // the sendrecv retires in its sequencer (sim/scheduler_sendrecv.cpp)
  } else {
    if (execute_) {
      if (ins_at(e, i).params.ind_kind == 3) ctx_.dma_register = tr.reg;
      execute(ctx_, ins_at(e, i));
      ctx_.dma_register.reset();
    }
    if (ctx_.checker) [[unlikely]] ctx_.checker->on_release(ctx_, ins_at(e, i));  // --check hook
    apply_updates(ops_[tr.gid], TimingRef{TimingRef::Transfer, x});
  }
  last_ = std::max(last_, now_);
  if (collect_) {
    TransferTiming& tt = r_.transfers[x];
    tt.start_ns = tr.first_start < 0 ? now_ : tr.first_start;
    tt.done_ns = now_;
    tt.pred = tr.pred;
    r_.timeline[tr.gid].retire_ns = now_;
  }
  if (o_.trace) {
    // One slice per transfer on its queue's track, from its data start (or the previous completion on the
    // queue, so slices never overlap) to its completion.
    const double start = std::max(tr.first_start < 0 ? now_ : tr.first_start, queue_done_[tr.queue]);
    trace_slice("dma.q" + std::to_string(tr.queue), ins_at(e, i), start, now_ - start, tr.gid);
  }
  queue_done_[tr.queue] = now_;
  try_issue_all();
}

}  // namespace nkisim::sim::detail
