// cost.h - timing formulas: one function per cost class of isa/costs.def, the shared pieces every streaming
// cost uses (MIN_II floor, performance modes, stride penalty, GpSimd start-up), the DMA transfer split, and
// the --explain breakdown. Every number comes from the TargetDesc; nothing here is hardware-specific.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/instruction.h"
#include "isa/target.h"

namespace nkisim::isa {

// The cost class of an opcode, straight from instructions.def.
isa::CostClass cost_class(isa::Opcode op);

// Time (ns) instruction `ins` occupies engine `e` (for DMA: only the trigger on the issuing sequencer).
// Contract for every cost_<class>: a pure function of (instruction, engine, target); cross-instruction
// effects (dependent latency, background LoadStationary, throttling, DMA queues) live in the scheduler.
#define COST(id) double cost_##id(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t);
#include "isa/costs.def"
#undef COST
double engine_ns(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t);  // dispatch
// Dynamic-offset operands: an instruction with one costs max(MIN_II_DYNAMIC, its own cost) (nki-isa.md §1.9, §3.7).
bool has_dynamic_operand(const isa::Instruction& ins);
double dynamic_floor_ns(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t, double ns);

// ---- --explain: what a cost function computed -------------------------------------------------------
// When cost_note() is non-null (only while --explain evaluates an instruction), cost functions and the
// helpers below record the formula they applied and its inputs there. Costs ignore it otherwise.
struct CostNote {
  std::string formula;  // the formula actually applied, e.g. "max(MIN_II, N/4)"
  std::vector<std::pair<std::string, std::string>> inputs;  // N, dtypes, mode, stride, ...
  double cycles = -1;   // result in engine cycles (-1: not recorded)
  void add(const std::string& key, const std::string& value) { inputs.emplace_back(key, value); }
  void add(const std::string& key, double value);
};
inline thread_local CostNote* cost_note_sink = nullptr;
inline CostNote*& cost_note() { return cost_note_sink; }  // thread-local sink, null by default

// ---- helpers for cost functions (isa/cost_*.cpp) ----------------------------------------------------
double cycles_ns(double cycles, isa::Engine e, const isa::TargetDesc& t);  // cycles of engine e -> ns
// N: elements per partition of the main input (slot 1, or slot 0 when the instruction has only a dst).
double main_free_elements(const isa::Instruction& ins);
// Innermost stride in bytes of the innermost dim with more than one element (0 for a single element).
double inner_stride_bytes(const isa::AccessPattern& ap);

// A streaming (Vector / Scalar / GpSimd) instruction's cycles:
//   Vector / Scalar: max(MIN_II, passes * N / speedup * stride) + extra_cycles
//   GpSimd:          GPSIMD_START + passes * N * stride + extra_cycles   (machine.md §8, §9: iota = 150 + N)
// passes: 1 for N, 2 for 2N, 8 for 8N ...; speedup: a performance mode (1, 2, 4), see perf_speedup();
// stride: stride_penalty_factor when an operand's innermost stride exceeds stride_penalty_bytes, else 1
// (operands with one element per partition, i.e. [P,1] scalars, are ignored). `formula` is the base
// formula text for --explain. Fills cost_note(). floor = false drops the MIN_II floor (Vector/Scalar) and
// GPSIMD_START (GpSimd) for the formulas published without them (tensor_reduce, max8, topk, ...).
double streaming_cycles(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t, double n, double passes,
                        double speedup, const char* formula, double extra_cycles = 0, bool floor = true);
double streaming_ns(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t, double n, double passes,
                    double speedup, const char* formula, double extra_cycles = 0, bool floor = true);

// Performance-mode speed-up of a streaming instruction (machine.md §3, §6, §7):
//   Vector, vector_perf_mode (NC-v3+), kind Copy (tensor_copy / tensor_scalar): dst and main input both
//     BF16/FP16 (FP8 too with vector_perf_fp8): 4x when both are in SBUF with unit innermost stride, else 2x.
//   Vector, kind TwoInput (tensor_tensor): 2x when both inputs are in SBUF and all operands BF16/FP16(/FP8).
//   Scalar: scalar_fast_factor when dst and main input are BF16/FP16/FP8 (NC-v4: 2x).
//   Everything else: 1.
enum class PerfKind : uint8_t { None, Copy, TwoInput };
double perf_speedup(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t, PerfKind kind);
// stride_penalty_factor if any streamed on-chip operand's innermost stride exceeds stride_penalty_bytes.
double stride_factor(const isa::Instruction& ins, const isa::TargetDesc& t);

// ---- DMA --------------------------------------------------------------------------------------------
// How a DMA transfer's data movement is split over the DMA engines.
struct DmaShare {
  uint32_t engine = 0;  // DMA engine index
  double bytes = 0;     // bytes this engine moves
  double hbm_bytes = 0; // of which read from or written to HBM
  uint32_t buffers = 0; // contiguous buffers (descriptor elements)
  double pages = 0;     // of which open another HBM page (DmaLayout::pages_per_row x rows)
  double ns = 0;        // time the engine needs alone (dma_buffers_ns)
};
// The time a DMA engine needs alone for `buffers` contiguous buffers of `bytes` in all at `rate` B/ns: each buffer
// dma_buffer_overhead_ns plus its bytes, and at least dma_buffer_min_ns (the engine's packet rate); and at least
// dma_page_ns for each of the `pages` buffers that start in another HBM page than the one before.
inline double dma_buffers_ns(const isa::TargetDesc& t, double buffers, double bytes, double rate, double pages = 0) {
  return std::max({buffers * t.dma_buffer_min_ns, buffers * t.dma_buffer_overhead_ns + (rate > 0 ? bytes / rate : 0.0),
                   pages * t.dma_page_ns});
}
// Fills `out` (cleared first) with one entry per DMA engine that moves data, in engine order.
void dma_transfer_plan(const isa::Instruction& ins, const isa::TargetDesc& t, std::vector<DmaShare>& out);
// The same split in closed form: rows [first, first + rows) of row_bytes each, per_row buffers per row;
// engine d moves rows_on_engine(d) of them.
struct DmaLayout {
  uint32_t first = 0, rows = 0;
  uint64_t per_row = 0;
  double row_bytes = 0;
  bool hbm = false;
  double pages_per_row = 0;       // HBM pages (dma_page_bytes) a row's contiguous runs start anew, on average
  double rate_factor = 1;         // fraction of the copy bandwidth (dma_rate_factor)
  uint32_t engines = 1, ppe = 1;  // dma_engines, dma_partitions_per_engine
  uint32_t rows_on_engine(uint32_t d) const;
  uint32_t engines_used() const;
  void rows_per_engine(uint32_t* out) const;  // out[d] = rows_on_engine(d) for every engine, in one sweep
};
DmaLayout dma_layout(const isa::Instruction& ins, const isa::TargetDesc& t);
// Bytes a transfer reads from / writes to HBM (for mbu_estimated_percent).
void dma_hbm_bytes(const isa::Instruction& ins, double& read, double& write);
// LNC=2 sendrecv: the DMA layout of this core's outgoing transfer: src's rows and buffers (SBUF to the peer's
// SBUF), and its transfer time in the DMA model, without queueing or contention (ns).
DmaLayout sendrecv_layout(const isa::Instruction& ins, const isa::TargetDesc& t);
double sendrecv_transfer_ns(const isa::Instruction& ins, const isa::TargetDesc& t);

// DGE modes: an instruction's `dge` parameter (the nki.isa.dge_mode values, and unknown_nki). dge_mode() resolves
// unknown to swdge for an indirect transfer, else to the target's dma_dge_mode (legacy kernels, hand-written
// programs), and unknown_nki (the unknown of an nki.jit kernel) likewise to dma_dge_mode_nki (isa/cost_dma.cpp).
enum class DgeMode : uint8_t { unknown = 0, swdge = 1, hwdge = 2, none = 3, unknown_nki = 4 };
DgeMode dge_mode(const isa::Instruction& ins, const isa::TargetDesc& t);
// Throughput of a transfer relative to a copy: dma_transpose_{hbm,sbuf}_factor, dma_compute_factor (or
// dma_compute_sbuf_rmw_factor for an SBUF read-add-write), 1 for dma_copy.
double dma_rate_factor(const isa::Instruction& ins, const isa::TargetDesc& t);

}  // namespace nkisim::isa
