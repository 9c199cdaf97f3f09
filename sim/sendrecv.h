// sendrecv.h - LNC=2 sendrecv (docs/lnc.md): the scheduler reads this core's src when the instruction is
// ready, hands the bytes to the other core, and writes the peer's bytes into dst when the pair is complete.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/cost.h"
#include "sim/exec.h"

namespace nkisim::sim {
std::vector<uint8_t> sendrecv_read_src(ExecContext& ctx, const isa::Instruction& ins);
void sendrecv_write_dst(ExecContext& ctx, const isa::Instruction& ins, const std::vector<uint8_t>& bytes);
// The DMA layout of this core's outgoing transfer: src's rows and buffers (SBUF to the peer's SBUF).
DmaLayout sendrecv_layout(const isa::Instruction& ins, const isa::TargetDesc& t);
// The transfer time of one sendrecv in the DMA model, without queueing or contention (ns).
double sendrecv_transfer_ns(const isa::Instruction& ins, const isa::TargetDesc& t);
}  // namespace nkisim::sim
