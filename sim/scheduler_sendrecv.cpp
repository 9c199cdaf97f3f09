// scheduler_sendrecv.cpp - LNC=2 sendrecv through the DMA queues (docs/lnc.md, machine.md §11-12).
// Once a sendrecv's pair is ready (its waits hold and the peer's signal arrived, sim/scheduler_control.cpp),
// this core's DMA moves its src to the peer: a transfer on the collective ring (a DMA queue of its own; or on queue
// `queue` when the instruction names one), with the layout of
// src (rows split over the DMA engines like any transfer, dma_fixed_ns before it is eligible, FIFO in its
// queue, round-robin with the other queues on each DMA engine), so it contends with the core's other
// transfers. When it completes, the peer learns at that time that its dst is filled (remote_arrival). The
// sendrecv occupies its sequencer from the pair being ready until both its own transfer and the peer's have
// completed; then it writes the peer's bytes into dst and applies its semaphore updates.
#include <algorithm>

#include "sim/scheduler_impl.h"
#include "sim/sendrecv.h"

namespace nkisim::sim::detail {

bool Scheduler::sendrecv_step(int e, uint32_t i, double& start) {
  const isa::Instruction& ins = ins_at(e, i);
  uint8_t& phase = sr_phase_[size_t(e)];
  if (phase == 0) {  // the pair is ready: submit this core's transfer
    sr_start_[size_t(e)] = start;
    phase = 1;
    DmaPlan& plan = sr_plans_.emplace_back();
    plan.layout = sendrecv_layout(ins, t_);
    // queue=Q (1 .. dma_queues - 1) names one of the core's queues; the default (0) is the ring of the collective
    // DMAs, the last queue (dma_fifo_'s extra entry): the runtime gives collectives DMA rings of their own (SDK
    // neuron-runtime/explore/device-memory.rst, "DMA Rings"), so a sendrecv is not queued behind the kernel's loads.
    plan.queue = ins.params.dma_queue != 0 && ins.params.dma_queue + 1u < dma_fifo_.size()
                     ? ins.params.dma_queue : uint16_t(dma_fifo_.size() - 1);
    std::vector<uint32_t>& rows = sr_rows_.emplace_back(plan.layout.engines);
    plan.layout.rows_per_engine(rows.data());
    plan.rows = rows.data();
    for (uint32_t d = 0; d < plan.layout.engines; ++d) plan.engines_used += rows[d] > 0;
    plan.bytes = plan.layout.row_bytes * plan.layout.rows;
    enqueue_transfer(e, i, plan, start, start + t_.dma_fixed_ns, 0, true, 0);
    return false;
  }
  if (phase == 1) return false;  // this core's transfer is in flight
  const auto key = std::make_pair(ins.params.sem, ins.params.rimm);
  auto it = std::find(sr_arrived_.begin(), sr_arrived_.end(), key);
  if (it == sr_arrived_.end()) return false;  // the peer's transfer into our dst is not done yet
  sr_arrived_.erase(it);
  phase = 0;
  start = sr_start_[size_t(e)];
  return true;
}

void Scheduler::sendrecv_out_done(uint32_t x) {
  const Transfer& tr = transfers_[x];
  const isa::Instruction& ins = ins_at(tr.engine, tr.index);
  sr_phase_[tr.engine] = 2;
  remote_arrival(ins.params.sem, ins.params.rimm, now_);
  blocked_ |= 1u << tr.engine;  // retried by transfer_done's try_issue_all (transfers_ may grow meanwhile)
  sem_changed_ = true;
}

void Scheduler::sendrecv_arrived(uint16_t sem, int32_t n, double t) {
  now_ = std::max(now_, t);
  sr_arrived_.emplace_back(sem, n);
  for (int e = 0; e < isa::kNumEngines; ++e)
    if (sr_phase_[size_t(e)] == 2) blocked_ |= 1u << e;
  sem_changed_ = true;
  try_issue_all();
}

}  // namespace nkisim::sim::detail
