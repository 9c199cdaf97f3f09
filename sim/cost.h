// cost.h - the per-instruction cost formulas live in isa/cost.h (pure functions of instruction, engine and target,
// shared by the compiler's estimates in ir/ and the machine model in sim/); this header re-exports them for sim/.
#pragma once
#include "isa/cost.h"

namespace nkisim::sim {

using isa::cost_class;
#define COST(id) using isa::cost_##id;
#include "isa/costs.def"
#undef COST
using isa::engine_ns;
using isa::has_dynamic_operand;
using isa::dynamic_floor_ns;

using isa::CostNote;
using isa::cost_note_sink;
using isa::cost_note;

using isa::cycles_ns;
using isa::main_free_elements;
using isa::inner_stride_bytes;
using isa::streaming_cycles;
using isa::streaming_ns;
using isa::PerfKind;
using isa::perf_speedup;
using isa::stride_factor;

using isa::DmaShare;
using isa::dma_buffers_ns;
using isa::dma_transfer_plan;
using isa::DmaLayout;
using isa::dma_layout;
using isa::dma_hbm_bytes;
using isa::sendrecv_layout;
using isa::sendrecv_transfer_ns;
using isa::DgeMode;
using isa::dge_mode;
using isa::dma_rate_factor;

}  // namespace nkisim::sim
