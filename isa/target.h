// target.h - hardware parameters per target (trn1, trn2, trn3) as data, each with its source.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "isa/instruction.h"
#include "isa/program.h"

namespace nkisim::isa {

// All timing parameters are doubles so any of them can be overridden by name (`--param name=value`).
struct TargetDesc {
  std::string name;     // "trn1" | "trn2" | "trn3"
  int nc_version = 3;   // NeuronCore generation: 2, 3, 4
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0, sync_ghz = 0;
  double partitions = 128;
  double sbuf_partition_bytes = 0;
  double sbuf_reserved_bytes = 0;  // per partition, kept by the compiler: not for automatically allocated tiles
  double psum_partition_bytes = 0;
  double psum_banks = 0;
  double min_ii_cycles = 0;        // MIN_II floor of streaming instructions
  double gpsimd_start_cycles = 0;  // GPSIMD_START
  double min_ii_dynamic_cycles = 0;  // MIN_II_DYNAMIC floor of an instruction with a dynamic-offset operand
  double dma_engines = 0;
  double dma_queues = 0;
  double dma_partitions_per_engine = 0;
  double dma_engine_bytes_per_ns = 0;
  double dma_fixed_ns = 0;          // descriptor + sync + semaphore-to-start latency per transfer
  double dma_trigger_cycles = 0;    // cost of the trigger instruction on the issuing sequencer
  double control_cycles = 0;        // cost of a sequencer control instruction (semaphore wait/update)
  double sequencer_registers = 0;   // 32-bit scalar registers per sequencer (register_* / dynamic loops)
  double max_lnc = 1;               // largest logical-NeuronCore size: kernel[lnc] launches on up to this many cores
  double core_barrier_ns = 0;       // a core_barrier's semaphore write reaching the other core
  double hbm_bytes_per_ns = 0;      // this core's share of HBM bandwidth
  double hbm_capacity_bytes = 0;    // HBM a (logical) core's program may address (program tensors must fit)
  double pe_rows = 128, pe_cols = 128;
  double profiler_ghz = 0;  // base clock of the profiler's neuroncore_cycle_count (total_cycles)

  // ---- timing model: compute engines (isa/cost.cpp, sim/scheduler.cpp; docs/cost-model.md) ----
  double access_overhead_cycles = 0;  // SBUF/PSUM access-request initiation, exposed on RAW dependencies
  double dep_static_cycles = 0;       // static overhead of a RAW-dependent back-to-back instruction
  // The same-engine RAW hand-off (a dependent instruction's start after its producer's end) per engine:
  // Vector and Scalar from measurements; GpSimd dep_static_cycles + 2 x access_overhead_cycles.
  double vector_raw_handoff_cycles = 0;
  double scalar_raw_handoff_cycles = 0;
  // The runtime's preamble before the kernel's first instruction and its teardown after the last: a device time
  // (Result::device_ns, what nki.benchmark and the profiler report) = kernel_launch_ns + total + kernel_teardown_ns.
  double kernel_launch_ns = 0;
  double kernel_teardown_ns = 0;
  double stride_penalty_bytes = 0;    // innermost stride above this (bytes) halves the port rate
  double stride_penalty_factor = 1;   // streaming-time factor when the stride rule applies
  double vector_perf_mode = 0;        // 1: NC-v3+ Vector 2x/4x performance modes
  double vector_perf_fp8 = 0;         // 1: the Vector fast modes also apply to FP8 (NC-v4)
  double vector_fp8_factor = 0;       // copy-kind speed-up with FP8 and a 16-bit/FP8 partner when vector_perf_fp8 is 0
  double scalar_fast_factor = 1;      // Scalar speed-up for BF16/FP16/FP8 (NC-v4: 2)
  // ---- timing model: Tensor Engine scheduling (sim/tensor_timing.cpp) ----
  double pe_background_ls = 1;        // 1: the next LoadStationary loads while the current multiply runs
  double pe_throttle = 0;             // 1: model the dI/dt throttling ramp (Trn2/Trn3 only)
  double pe_throttle_start = 0;       // throttling: initial fraction of peak
  double pe_throttle_ramp_ns = 0;     // throttling: time to ramp from start to 100%
  double pe_throttle_window_ns = 0;   // throttling: window whose utilisation re-engages the limit
  double pe_throttle_threshold = 0;   // throttling: utilisation below which the limit re-engages
  double pe_drain_ns = 0;             // a multiply's pipeline drain after its last column: active, not issue, time
  double psum_bank_conflicts = 1;     // 1: Vector/Scalar PSUM accesses serialise per bank (v2: whole PSUM)
  // ---- timing model: DMA (sim/dma_timing.cpp) ----
  double dma_buffer_overhead_ns = 0;  // per contiguous buffer (descriptor element) on a DMA engine
  double dma_buffer_min_ns = 0;       // a DMA engine's least time per buffer (its packet rate)
  double dma_page_bytes = 0;          // HBM page (DRAM row) size
  double dma_page_ns = 0;             // a DMA engine's least time for a buffer that opens another HBM page
  double dma_page_shared = 0;         // 1: DMA engines walking the same pages share each opening
  double dma_share_interval_ns = 0;   // a DMA engine starts a transfer's share at most once per this (transfer rate)
  double dma_engine_stagger_ns = 0;   // a transfer's DMA engines start this far apart (the last one at its eligibility)
  double tile_buffers = 0;           // physical buffers an automatically allocated SBUF tile's live ranges rotate through
  double list_schedule = 0;          // 1: the back end reorders independent ops by estimated time (ir/list_schedule.cpp)
  double dma_trigger_spread = 0;      // 1: DMAs without engine= are triggered by Sync or an engine with no compute work
                                      // (ir/deps.h, the trigger that holds no later transfer back)
  double dma_hwdge_ns = 0;            // hardware DGE descriptor generation per DMA instruction (0: none)
  double dma_dge_blocks = 0;          // hardware DGE blocks per core
  double dma_swdge_cycles_per_buffer = 0;  // software DGE on GpSimd: cycles per descriptor (+ GPSIMD_START)
  double dma_dge_mode = 0;            // DGE mode of dge_mode=unknown static transfers (0 unknown = none, 1 swdge, 2 hwdge, 3 none)
  double dma_dge_mode_nki = 0;        // the same for the unknown of an nki.jit kernel (dge 4)
  double dma_transpose_hbm_factor = 0;   // dma_transpose throughput / copy throughput, HBM source
  double dma_transpose_sbuf_factor = 0;  // dma_transpose throughput / copy throughput, SBUF source
  double dma_compute_factor = 0;         // dma_compute (DMA compute engines) throughput / copy throughput
  double dma_compute_sbuf_rmw_factor = 0;  // dma_compute SBUF read-add-write throughput / copy throughput
  double hbm_peak_bytes_per_ns = 0;   // one HBM stack: the peak of the profiler's MBU
  // ---- Tensor Engine instruction costs (isa/cost_tensor.cpp; docs/tensor-engine.md) ----
  double mm_init_cycles = 0;            // MM_INIT_LATENCY: minimum MultiplyMoving initiation interval
  double ls_speedup = 1;                // LoadStationary speed-up over an MM of the same free size
  double pe_fp32_factor = 1;            // cost factor of float32 matmul inputs
  double pe_fp32_transpose_factor = 1;  // cost factor of 4-byte PE transposes (transpose mode)
  double pe_mx_macs_per_cycle = 4;      // MX matmul: MACs per PE per cycle (nc_matmul_mx, NC-v4)

  // ---- Vector / Scalar / GpSimd extras (isa/cost_vector.cpp) ----
  double act_read_accumulator_cycles = 0;  // ScalarE ActReadAccumulator (activation reduce_res read-out)

  double engine_ghz(Engine e) const;
};

struct TargetParam {
  const char* name;
  double TargetDesc::*field;
  const char* unit;
  const char* doc;
  double lo, hi;  // the valid settings: lo <= value <= hi
  bool integer;   // whole numbers only
};
std::span<const TargetParam> target_params();

std::optional<TargetDesc> find_target(std::string_view name);  // a fresh copy of the built-in data
// Sets a parameter by name; returns false if no such parameter. A value outside the parameter's valid range
// (NaN, infinities, a fraction for a count) is an Error naming the parameter and the range.
bool set_target_param(TargetDesc& t, std::string_view name, double value);

// Checks a program's declarations against the target before anything is allocated: the semaphore count,
// .hbm_bytes and every HBM tensor (bytes = shape elements x dtype size, address + bytes) within the target's
// HBM capacity, with overflow-checked arithmetic. Throws an Error located at `file` (the program file; may be
// empty) naming the culprit.
void check_program_fits(const Program& p, const TargetDesc& t, const std::string& file);
// The LNC rule, checked here only: `lnc` physical cores per logical core run on `t` when 1 <= lnc <= max_lnc.
// Throws Error("LNC=2: trn1 supports only LNC=1", loc) otherwise ("... supports LNC=1 to 2" where max_lnc is 2).
void check_lnc(const TargetDesc& t, int64_t lnc, std::optional<SourceLoc> loc = std::nullopt);

}  // namespace nkisim::isa
