// exec_sendrecv.cpp - LNC=2 sendrecv (nki-isa.md §3.6, docs/lnc.md): the data movement.
// The instruction runs in the GpSimd sequencer (sim/scheduler_control.cpp); the scheduler calls
// sendrecv_read_src when this core's sendrecv is ready and sendrecv_write_dst with the peer's bytes once the
// matching sendrecv of the other core has signalled. The transfer itself runs through this core's DMA queues
// (sim/scheduler_sendrecv.cpp). Cost class `sendrecv` (what --explain shows): the DMA model of that transfer
// (src's layout) without queueing or contention, in isa/cost_dma.cpp.
#include <cstring>

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

void exec_sendrecv(ExecContext&, const isa::Instruction&) {}  // the scheduler moves the data

}  // namespace nkisim::sim
