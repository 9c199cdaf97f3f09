// cost.h - timing formulas: one function per cost class of isa/costs.def, plus the DMA transfer split.
// Every number comes from the TargetDesc; nothing here is hardware-specific.
#pragma once
#include <cstdint>
#include <vector>

#include "isa/instruction.h"
#include "isa/target.h"

namespace nkisim::sim {

// The cost class of an opcode, straight from instructions.def.
isa::CostClass cost_class(isa::Opcode op);

// Time (ns) instruction `ins` occupies engine `e` (for DMA: only the trigger on the issuing sequencer).
#define COST(id) double cost_##id(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t);
#include "isa/costs.def"
#undef COST
double engine_ns(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t);  // dispatch

// How a DMA transfer's data movement is split over the DMA engines.
struct DmaShare {
  uint32_t engine = 0;  // DMA engine index
  double bytes = 0;
  double ns = 0;  // time this engine is busy with the transfer
};
// Fills `out` (cleared first) with one entry per DMA engine the transfer uses, in engine order.
void dma_transfer_plan(const isa::Instruction& ins, const isa::TargetDesc& t, std::vector<DmaShare>& out);

}  // namespace nkisim::sim
