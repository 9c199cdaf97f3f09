// scheduler_dma_lockstep.cpp - the DMA engines in lockstep: a transfer's shares as one group.
// A transfer is split over every DMA engine (scheduler_dma.cpp); when each engine moves the same nonzero number
// of rows of every transfer (the plan is `even`: tiles of whole partition blocks), the engines start at the same
// time, take the same queue in their round robin, end together and report together: their states stay equal.
// While they are (lockstep_), dma_[0] alone is kept up to date and stands for all of them, and each share
// start, completion and report is done once for the group instead of once per engine. The schedule is the one
// the per-engine path computes, number for number:
// * a share's duration depends on the engine only through its rows (equal) and the HBM split, which is the same
//   for every engine: with one core the HBM pool counts only these engines, so `active` is 0 or all of them
//   before a start, and every engine gets max(engines, nshares) = engines, as each would one by one;
// * the group's completion reports for every engine and completes the transfer before the engines start their
//   next shares, where the per-engine path completes it between the last engine's report and its start. Nothing
//   the completion does (effects, semaphore updates, issuing instructions: DMA triggers are submitted by later
//   events) touches the DMA engines or the transfers they pick, and starting a share touches nothing the
//   completion reads, so the order does not matter. (A sendrecv enqueues a transfer while it issues: lockstep
//   is only used with one core, where a sendrecv cannot run.)
// Not used with a trace (its per-engine slices come in the per-engine order), with more than 16 engines (the
// share events' mask) or 64 queues (the engines' queue mask). An uneven transfer breaks the lockstep: dma_[0]
// is copied to the other engines and the per-engine path goes on; once no uneven transfer is queued or in
// flight and every engine is in the same state again, at a share completion of all engines, lockstep resumes.
#include "sim/scheduler_impl.h"

namespace nkisim::sim::detail {

void Scheduler::lockstep_init() {
  const size_t nd = dma_.size(), nq = dma_fifo_.size();
  lockstep_allowed_ = cores == 1 && !o_.trace && nd >= 2 && nd <= 16 && nq <= 64;
  lockstep_ = lockstep_allowed_;
  dma_all_mask_ = nd >= 32 ? ~0u : (1u << nd) - 1;
}

void Scheduler::lockstep_break() {
  for (size_t d = 1; d < dma_.size(); ++d) dma_[d] = dma_[0];
  lockstep_ = false;
}

// As on_dma_eligible for every engine: those where x heads its queue (all or none) start it or kick.
void Scheduler::lockstep_eligible(uint32_t x) {
  const uint16_t q = transfers_[x].queue;
  const auto& fifo = dma_fifo_[q];
  const DmaEngine& en = dma_[0];
  if (en.cursor[q] >= fifo.size() || fifo[en.cursor[q]] != x) return;
  if (!en.busy && en.nonempty == (uint64_t(1) << q)) lockstep_start(q, x);
  else lockstep_kick();
  flush_shares();
}

// As dma_kick for every engine. Every queued transfer is even, so no engine has entries with nothing to move.
void Scheduler::lockstep_kick() {
  const DmaEngine& en = dma_[0];
  if (en.busy) return;
  const uint64_t cand = en.nonempty;
  const uint64_t from_rr = en.rr >= 64 ? 0 : cand & (~uint64_t(0) << en.rr);
  for (uint64_t m : {from_rr, cand & ~from_rr})
    for (; m; m &= m - 1) {
      const size_t q = size_t(__builtin_ctzll(m));
      const auto& fifo = dma_fifo_[q];
      const uint32_t x = en.cursor[q] < fifo.size() ? fifo[en.cursor[q]] : ~0u;
      if (x != ~0u && transfers_[x].eligible <= now_) {
        lockstep_start(q, x);
        return;
      }
    }
}

// As start_share on every engine, one after the other (see the top of the file for the HBM split).
void Scheduler::lockstep_start(size_t q, uint32_t x) {
  DmaEngine& en = dma_[0];
  const uint32_t nd = uint32_t(dma_.size());
  const size_t nq = en.cursor.size();
  if (++en.cursor[q] == dma_fifo_[q].size()) en.nonempty &= ~(uint64_t(1) << q);
  en.rr = uint16_t(q + 1 == nq ? 0 : q + 1);
  Transfer& tr = transfers_[x];
  const DmaPlan& plan = *tr.plan;
  const uint32_t rows_d = tr.rows[0];
  const TimingRef why = now_ > tr.eligible && en.last.kind != TimingRef::None ? en.last : tr.pred;
  en.hbm = plan.layout.hbm && t_.hbm_bytes_per_ns > 0;
  uint32_t split = 0;
  if (en.hbm) {
    hbm_pool_->active += nd;
    split = std::max<uint32_t>(hbm_pool_->active, tr.nshares);
  }
  const double dur = begin_share(en, tr, rows_d, split, q, x, why);
  for (Staged& st : staged_)
    if (st.end == now_ + dur && st.transfer == x) {
      st.mask |= dma_all_mask_;
      return;
    }
  staged_.push_back(Staged{now_ + dur, x, dma_all_mask_});
}

// Every engine's share of the same transfer completed: as on_share_done for each engine in index order.
void Scheduler::lockstep_done() {
  DmaEngine& en = dma_[0];
  const uint32_t nd = uint32_t(dma_.size());
  const uint32_t x = en.transfer;
  en.busy = false;
  if (en.hbm) hbm_pool_->active -= nd;
  en.hbm = false;
  en.last = TimingRef{TimingRef::Transfer, x};
  Transfer& tr = transfers_[x];
  if (now_ >= tr.last_report) {
    tr.last_report = now_;
    tr.pred = en.share_pred;
  }
  tr.pending = uint16_t(tr.pending - nd);
  if (tr.pending == 0) transfer_done(x);
  if (lockstep_ && dma_[0].nonempty) lockstep_kick();
}

// After a share completion of every engine on the per-engine path: lockstep again when no uneven transfer is
// left and the engines are in the same state, idle, or busy with shares of one transfer started just now
// (staged with every engine's bit: they end together).
void Scheduler::lockstep_rejoin() {
  const DmaEngine& a = dma_[0];
  for (size_t d = 1; d < dma_.size(); ++d) {
    const DmaEngine& b = dma_[d];
    if (b.busy != a.busy || b.nonempty != a.nonempty || b.empties != a.empties || b.rr != a.rr ||
        b.busy_queue != a.busy_queue || b.hbm != a.hbm || b.transfer != a.transfer || !(b.share_pred == a.share_pred) ||
        !(b.last == a.last) || b.last_start != a.last_start || b.cursor != a.cursor)
      return;
  }
  if (a.empties != 0) return;
  if (a.busy) {
    bool together = false;
    for (const Staged& st : staged_) together = together || (st.transfer == a.transfer && st.mask == dma_all_mask_);
    if (!together) return;
  }
  lockstep_ = true;
}

}  // namespace nkisim::sim::detail
