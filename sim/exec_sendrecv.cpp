// exec_sendrecv.cpp - LNC=2 sendrecv (nki-isa.md §3.6, docs/lnc.md): the data movement and the cost.
// The instruction runs in the GpSimd sequencer (sim/scheduler_control.cpp); the scheduler calls
// sendrecv_read_src when this core's sendrecv is ready and sendrecv_write_dst with the peer's bytes once the
// matching sendrecv of the other core has signalled. The transfer itself runs through this core's DMA queues
// (sim/scheduler_sendrecv.cpp). Cost class `sendrecv` (what --explain shows): the DMA model of that transfer
// (src's layout) without queueing or contention (sim/cost_dma.cpp): dma_fixed_ns + the busiest DMA engine's
// dma_buffers_ns (rows x buffers-per-row buffers, rows x row_bytes at dma_engine_bytes_per_ns).
#include <algorithm>
#include <cstring>

#include "sim/cost.h"
#include "sim/sendrecv.h"

namespace nkisim::sim {

std::vector<uint8_t> sendrecv_read_src(ExecContext& ctx, const isa::Instruction& ins) {
  const View src = ctx.read(ins, 1);
  std::vector<uint8_t> out(size_t(src.total_elems()) * src.esize);
  for (uint32_t p = 0; p < src.partitions; ++p) gather_raw(src, p, out.data() + size_t(p) * src.free_elems * src.esize);
  if (ctx.checker) [[unlikely]] ctx.checker->on_retire(ctx, ins);  // --check hook: src was read
  return out;
}

void sendrecv_write_dst(ExecContext& ctx, const isa::Instruction& ins, const std::vector<uint8_t>& bytes) {
  const View dst = ctx.write(ins, 0);
  if (bytes.size() != size_t(dst.total_elems()) * dst.esize)
    ctx.fail(ins, "sendrecv: the other core sent " + std::to_string(bytes.size()) + " bytes but dst holds " +
                      std::to_string(size_t(dst.total_elems()) * dst.esize));
  for (uint32_t p = 0; p < dst.partitions; ++p)
    scatter_raw(dst, p, bytes.data() + size_t(p) * dst.free_elems * dst.esize);
  if (ctx.checker) [[unlikely]] ctx.checker->on_retire(ctx, ins);  // --check hook: src was read, dst written
}

DmaLayout sendrecv_layout(const isa::Instruction& ins, const isa::TargetDesc& t) {
  isa::Instruction out = ins;
  out.operands[0] = ins.operands[1];  // src on both sides: the peer's dst holds the same elements
  return dma_layout(out, t);
}

double sendrecv_transfer_ns(const isa::Instruction& ins, const isa::TargetDesc& t) {
  const DmaLayout l = sendrecv_layout(ins, t);
  double busiest = 0;
  for (uint32_t d = 0; d < l.engines; ++d) {
    const double rows = l.rows_on_engine(d);
    const double rate = t.dma_engine_bytes_per_ns * l.rate_factor;
    busiest = std::max(busiest, dma_buffers_ns(t, rows * double(l.per_row), rows * l.row_bytes, rate, rows * l.pages_per_row));
  }
  return t.dma_fixed_ns + busiest;
}

double cost_sendrecv(const isa::Instruction& ins, isa::Engine, const isa::TargetDesc& t) {
  const double ns = sendrecv_transfer_ns(ins, t);
  if (CostNote* note = cost_note()) {
    note->formula = "dma_fixed_ns + busiest DMA engine (buffers x dma_buffer_overhead_ns + bytes / "
                    "dma_engine_bytes_per_ns, at least buffers x dma_buffer_min_ns) of src's transfer on a DMA queue, after the peer's matching "
                    "sendrecv (without contention; the schedule shows the DMA queues' delays)";
    note->add("ns", ns);
  }
  return ns;
}

void exec_sendrecv(ExecContext&, const isa::Instruction&) {}  // the scheduler moves the data

}  // namespace nkisim::sim
