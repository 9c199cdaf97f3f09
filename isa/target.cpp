// target.cpp - the built-in hardware descriptions of trn1 (NC-v2), trn2 (NC-v3) and trn3 (NC-v4).
// Every number cites its source: "machine.md §n" and the source tags are docs/hardware-facts.md §n (same
// numbering, with the public URLs); the nki-isa.md / nki-language.md facts cited are summarised in its §15.
// [inferred] marks a value no source states; each is overridable with --param NAME=VALUE.
#include "isa/target.h"

#include <array>
#include <cmath>
#include <sstream>

namespace nkisim::isa {
namespace {

TargetDesc make_trn1() {
  TargetDesc t;
  t.name = "trn1";
  t.nc_version = 2;
  // Engine clocks: machine.md §3 (ARCH2).
  t.tensor_ghz = 2.8;
  t.vector_ghz = 1.12;
  t.scalar_ghz = 1.4;
  t.gpsimd_ghz = 1.4;
  // Sync sequencer clock: not published; we use the profiler base clock of Trn1, 1.4 GHz (machine.md §3, NX).
  t.sync_ghz = 1.4;
  t.sbuf_partition_bytes = 192 * 1024;  // 24 MiB / 128 partitions (machine.md §1, ARCH2)
  // SBUF the Neuron compiler keeps for itself, per partition: nl.tile_size.total_available_sbuf_size is the SBUF
  // less 16384 + 8 + 256 bytes (NKL's trn2 figure, 224 KiB - 16648; nki-library's MoE kernels use 224 KiB -
  // 16384 - 8 - 520), taken as the same on every target. Automatically allocated tiles get the rest: the matmul
  // tutorial's M,N,K-blocked step (224 KiB of tiles per partition) moves 1.84 GB on trn2 by its profile's MBU
  // against the 1.48 GB its own loads and stores move, so its tiles do not all fit.
  t.sbuf_reserved_bytes = 16384 + 8 + 256;
  t.psum_partition_bytes = 16 * 1024;   // 2 MiB / 128 = 8 banks x 2 KiB (machine.md §5)
  t.psum_banks = 8;                     // machine.md §5
  t.min_ii_cycles = 64;                 // MIN_II (machine.md §9, ISA-OLD)
  t.gpsimd_start_cycles = 150;          // GPSIMD_START (machine.md §8, ISA-OLD)
  // MIN_II_DYNAMIC ~600 cycles: a Vector/Scalar/GpSimd instruction with a dynamic src/dst address costs
  // max(MIN_II_DYNAMIC, N) (nki-isa.md §1.9 and §3.7 tensor_copy_dynamic_src/dst, ISA-OLD); [inferred] the same
  // on every generation and for every instruction with an operand moved by .ap(scalar_offset=) / .select().
  t.min_ii_dynamic_cycles = 600;
  t.dma_engines = 16;                   // per NeuronCore, all gens (machine.md §11)
  t.dma_queues = 16;                    // per engine (machine.md §11, DMAOV)
  t.dma_partitions_per_engine = 8;      // 128 partitions / 16 engines (machine.md §11, DMAOV)
  // [conflict] 27 GiB/s (ARCH2) / 27.2 GB/s (DMAOV) vs 17 B/ns (DMABW table): we take the DMABW table, the
  // source that also gives the Trn2 figure matching a measured transfer (machine.md §11, §14.1).
  t.dma_engine_bytes_per_ns = 17;
  t.dma_fixed_ns = 1300;  // descriptor + sync + semaphore-to-start per transfer (machine.md §11, DMABW)
  t.dma_trigger_cycles = 64;  // [inferred] a DMA trigger costs one MIN_II on the issuing sequencer
  t.control_cycles = 4;       // [inferred] semaphore wait/update control instruction
  // 64 x 32-bit registers per sequencer, v2-v4 (nki-isa.md §1.2, [ISA] register_alloc).
  t.sequencer_registers = 64;
  t.max_lnc = 1;  // Trn1 is LNC=1 only (machine.md §12, LNC)
  // [inferred] a cross-core semaphore write: no published figure; taken as the DMA descriptor/sync/semaphore
  // latency of machine.md §11 (~1300 ns, DMABW), since sendrecv's CoreBarrier sync travels the same way.
  t.core_barrier_ns = 1300;
  t.hbm_bytes_per_ns = 410;   // [inferred] 820 GB/s chip / 2 cores (machine.md §11)
  t.hbm_capacity_bytes = 16.0 * (1ull << 30);  // [inferred] 32 GiB HBM per Trainium chip / 2 cores
  t.profiler_ghz = 1.4;       // NeuronCore base clock of Trn1 for neuroncore_cycle_count (machine.md §3, NX)
  // ActReadAccumulator ~64 ScalarE cycles (nki-isa.md §1.8/§1.9, [A1], stated for v2); [inferred] same on v3/v4.
  t.act_read_accumulator_cycles = 64;
  // Compute-engine timing (docs/cost-model.md explains how each is used).
  t.access_overhead_cycles = 60;  // SBUF/PSUM tensor-access initiation ~60 cycles, hidden by ILP (machine.md §9, ARCH2)
  // Static overhead of tiny or RAW-dependent back-to-back V/S instructions ~100 cycles (machine.md §6, ARCH2;
  // nki-isa.md §1.9, PERF). [conflict] machine.md §14.3 lists 64 (MIN_II) / 100 (ARCH2) / 144 (NKL DVE): MIN_II
  // stays the floor of every instruction; 100 is the extra of a dependent one, the only case ARCH2 states.
  // With two exposed accesses the trn1 dependent Scalar chain comes out at 64+100+2x60 = 284 cycles vs the
  // measured 264 (PERF Opt #5a), +7.6%.
  t.dep_static_cycles = 100;
  // Vector: the fused Mamba tutorial's Vector "Selection Summary" active time per (channel tile, state)
  // iteration is its instructions' busy time plus ~128 cycles per dependent step (mamba_v1 C=4096: 2.12 ms / 512
  // = 4.141 us = 3.657 us busy + 4 x 135 cycles; mamba_v2: 1.57 ms / 512 = 3.066 us = 2.742 us + 3 x 121 cycles
  // at 1.12 GHz; SDK nki/guides/tutorials/fused_mamba.rst figures) [inferred]: ARCH2's "~100 cycles" for a
  // dependent instruction plus part of one access. Scalar: the measured dependent ACT chain, II 264 cycles =
  // MIN_II 64 + 200 (machine.md §9, PERF Opt #5a). [inferred] the same on NC-v3/v4.
  t.vector_raw_handoff_cycles = 128;
  t.scalar_raw_handoff_cycles = 200;
  // The mamba_v1 profile (SDK nki/img/mamba_v1_profile.png, 172.93 us): the runtime's preamble runs on every
  // engine until the first DMA at ~12.5 us; after the last output write (~168.4 us) ~4.5 us of teardown
  // [inferred from the figure]. [inferred] the same on Trn2/Trn3.
  t.kernel_launch_ns = 12500;
  t.kernel_teardown_ns = 4500;
  t.stride_penalty_bytes = 16;   // innermost stride > 16 B: half rate (machine.md §10, ARCH2)
  t.stride_penalty_factor = 2;   // "half rate" read as 2x the streaming time (ARCH2 also says "~50% slower")
  t.vector_perf_mode = 0;        // NC-v2 has no Vector performance modes (machine.md §6: NC-v3 addition)
  t.vector_perf_fp8 = 0;
  t.scalar_fast_factor = 1;      // 128 elements/cycle for every dtype (machine.md §3, ARCH2)
  // Tensor Engine scheduling.
  t.pe_background_ls = 1;        // background LoadStationary (machine.md §4, ARCH2 + PERF Opt #7)
  t.pe_throttle = 0;             // no dI/dt throttling on Trn1 (machine.md §4: Trn2, Trn3)
  t.pe_throttle_start = 0.5;     // throttling starts at ~50% of peak (machine.md §4, NX)
  t.pe_throttle_ramp_ns = 3000;  // ramps to 100% over ~3 us (machine.md §4, NX)
  t.pe_throttle_window_ns = 3000;  // re-engages when utilisation < 50% for any ~3 us window (machine.md §4)
  t.pe_throttle_threshold = 0.5;
  // [inferred] The profiler's Tensor Engine active time includes a multiply's pipeline drain, ~200 ns, hidden when
  // multiplies run back to back: the matmul tutorial (trn2, SDK nki/img/how-to/v2-pe.png, v3-pe.png) shows 34.82
  // ms active for 32768 [128x128]x[128x512] fp32 multiplies when each waits for its DMA (1.063 us each) and 28.16
  // ms when they run back to back (0.859 us each: the issue time); its profile (v2-zoom.png) draws successive
  // matmul instructions overlapping. 1.063 - 0.859 = 0.204 us. [inferred] the same on every target.
  t.pe_drain_ns = 200;
  // NC-v2: VectorE and ScalarE cannot access PSUM at the same time (machine.md §10, ARCH2).
  t.psum_bank_conflicts = 1;
  // DMA. [inferred] per-buffer cost: chosen so the DMABW efficiency statements hold (>= 90% of the
  // per-engine peak from 2 KiB per partition, >= 95% from 4 KiB, overhead-bound below 256 B: 65% at 256 B,
  // 48% at 128 B; machine.md §11, nki-isa.md §1.10) while the measured Trn2 32 KiB single-engine transfer
  // stays within 5% (as 8 x 4 KiB buffers: 1473 vs 1416 ns).
  t.dma_buffer_overhead_ns = 6;
  // [inferred] A DMA engine moves at most one buffer (packet) per ~15 ns, however small: the "DMA packets-per-second
  // (PPS) bottleneck caused by small transfers" of the SDK's DMA bandwidth guide (nki/deep-dives/
  // nki-dma-bandwidth-guide.rst). Measured from nki-samples' adaptive_avg_pool2d latencies (trn2; test/unit/
  // test_adaptive_avg_pool2d.py before c4b806e; docs/cost-model.md "DMA", "Packet rate"): over the six 128-partition
  // points, whose windows load h rows of 8-48 B per partition, the latency grows 0.120 us per window row, i.e.
  // 8 buffers per engine: 15.0 ns a buffer (least squares; 0.585 us per window and 4.3 us beside). Buffers of
  // >= 207 B take longer than this anyway, so every calibrated figure and DMABW statement is unchanged.
  t.dma_buffer_min_ns = 15;
  // The Neuron compiler's allocator decides "how many physical tiles are allocated to each tensor ... to achieve
  // instruction parallelism across different engines ... while minimizing memory usage"; "an obvious improvement
  // is to adopt double buffering" (SDK general/nki/nki_direct_allocation_guide.rst at 12b81bee). [inferred] two:
  // a tile reloaded for independent values (ir/rename.cpp) overlaps the next load with the current value's use, as
  // the adaptive_avg_pool2d latencies (trn2) show (its 2x2 window takes 0.83 us, less than one dependent DMA round
  // trip). Over its nine points (median |error|): one buffer 84% (all too slow), two 12.4%, 64 16.3% (seven of
  // nine too fast) (docs/cost-model.md, "Session 15", "Live ranges in two buffers"). The same on every target.
  t.tile_buffers = 2;
  // The Neuron compiler's scheduler reorders independent operations "for better hardware utilization" (nl.no_reorder,
  // SDK nki/api/nki/language/__init__.py) and picks tensor_copy / memset engines "based on engine workload" (SDK
  // nki/api/nki/isa/__init__.py); its policy is not published. 1: ir/list_schedule.cpp models both (docs/cost-model.md,
  // "Session 16"); 0: program order, table default engines. The same on every target.
  t.list_schedule = 1;
  // [inferred] A buffer that starts in another HBM page (a DRAM row, 1 KiB) than the engine's previous one holds
  // the DMA engine at least 55.6 ns (a row cycle). From the matmul tutorial's DMA-bound tiled step (SDK nki/guides/
  // tutorials/kernel-optimization.rst, trn2; profile figures nki/img/how-to/v2-*.png): 39.89 ms for 32768 x
  // (64 KiB lhsT + 256 KiB rhs) loads back to back on every engine = 1.217 us per pair; the rhs share takes 0.772
  // us (8 rows of 2 KiB: 8 x 6 ns + 16 KiB at 362/16 B/ns), so the lhsT share, 8 rows of 512 B 16 KiB apart
  // (0.229 us of buffers and bytes), holds its engine 0.445 us: 55.6 ns a row. Not fitted to and confirmed by
  // nki-samples' adaptive_avg_pool2d 2x64x256x256 -> 1 (trn2): 512-B rows 1 KiB apart, 255 us measured, 265 us
  // simulated (-39% before). Rows of >= 1.1 KiB take longer than this anyway (DMABW's statements hold). This
  // replaces the "one share per 440 ns" engine rate inferred from the same figure (dma_share_interval_ns, now
  // 0): it gives the tiled step the same time and explains the pooling point, which a per-share rate does not.
  t.dma_page_bytes = 1024;
  t.dma_page_ns = 55.6;
  // [inferred] When a transfer's partition rows lie closer than a page (the partition is HBM's innermost dimension,
  // as in a transposing store), the DMA engines' blocks of rows walk the same pages in step, and one opening serves
  // every engine in it. nki-samples' fused_self_attn_for_SD_small_head_size fp32 stores [128 d, 128 q] tiles into
  // [q, d] rows: 4-byte elements 512 B apart, a page every other element on each engine. Charged per engine, each
  // store holds its engines 28.2 us, and 32 of them could not finish under the suite's 675 us bound (20.6 us per
  // store at most); shared, they are buffer-bound (15.4 us), as the bf16 / fp16 variants are (within 2.2% of their
  // bounds). No other figure has rows this close.
  t.dma_page_shared = 1;
  t.dma_share_interval_ns = 0;
  // [inferred] The engines of one transfer start one after another: in the SDK's DMA overview profile (nki/get-
  // started/about/nki-dma-overview.rst, figure nki/img/overviews/nki-dma-intro-5.png, trn2, a [128, 128] bf16
  // load and store, 2 KiB per engine) the 16 engines' packets (~85-97 ns each) start 9.8 ns (store, every engine
  // visible) and 19.1 ns (load) apart per engine (Theil-Sen slopes of the start times read off the image at
  // 1.115 ns per pixel). The smaller, from the store; the last engine still starts dma_fixed_ns after the trigger.
  t.dma_engine_stagger_ns = 10;
  // Which engine triggers a DMA the kernel did not place (docs/cost-model.md, "Which engine triggers a DMA"): on
  // NC-v2 the engine that produced its input, else Sync. The fused Mamba tutorial's profile (Trn1) shows input loads
  // on qSyncIO queues (SDK nki/guides/tutorials/fused_mamba.rst).
  t.dma_trigger_spread = 0;
  t.dma_hwdge_ns = 0;            // no hardware DGE before NC-v3 (machine.md §11, DGE)
  t.dma_dge_blocks = 0;
  t.dma_swdge_cycles_per_buffer = 1;  // [inferred] software DGE: GPSIMD_START + 1 GpSimd cycle per descriptor
  // DGE mode of every transfer until instructions carry their own (docs/cost-model.md "DGE"): 0 = unknown,
  // timed as none (host-built descriptors, the only mode on NC-v2).
  t.dma_dge_mode = 0;
  t.dma_dge_mode_nki = 0;  // no hardware DGE before NC-v3: host-built descriptors, as for legacy kernels
  // DMA transpose is a Trn2 feature (nki-isa.md §Availability); these apply from trn2 on: up to 90% of copy
  // throughput HBM->SBUF, up to 50% SBUF->SBUF (machine.md §11, nki-isa.md §1.10 / §3.5, ARCH3).
  t.dma_transpose_hbm_factor = 0.9;
  t.dma_transpose_sbuf_factor = 0.5;
  // dma_compute through the DMA compute engines runs at 50% of copy speed before NC-v4; the NC-v4 SBUF
  // read-add-write runs at copy speed (nki-isa.md §3.5 dma_compute, ARCH4). [inferred] the RMW factor
  // before NC-v4 is the compute-engine 50%.
  t.dma_compute_factor = 0.5;
  t.dma_compute_sbuf_rmw_factor = 0.5;
  t.hbm_peak_bytes_per_ns = 410;  // one of 2 HBM stacks of 820 GB/s (machine.md §1, ARCH2); MBU peak (§12, NX)
  // Tensor Engine instruction costs (machine.md §4, nki-isa.md §1.9, §3.1).
  t.mm_init_cycles = 64;            // MM_INIT_LATENCY = 64 TensorE cycles (ARCH2, PERF); the 64 of ISA-OLD's formula
  t.ls_speedup = 4;                 // LoadStationary "up to 4x faster" than an MM of equal free size (ARCH2, PERF)
  t.pe_fp32_factor = 4;             // FP32 inputs: 4x the BF16 cost (ISA-OLD; ARCH2; v3 20 vs 79 TFLOPS)
  t.pe_fp32_transpose_factor = 4;   // [inferred] NC-v2 has no transpose mode: an FP32 transpose is an FP32 matmul
  // MX matmul (nc_matmul_mx, NC-v4 only; unused before): each PE does 4 MACs per cycle, 4x the BF16 throughput
  // (nki-isa.md §3.1 nc_matmul_mx [A3]; machine.md §4 ARCH4: 315 MXFP8 vs 79 BF16 TFLOPS per NC-v4).
  t.pe_mx_macs_per_cycle = 4;
  return t;
}

TargetDesc make_trn2() {
  TargetDesc t = make_trn1();
  t.name = "trn2";
  t.nc_version = 3;
  t.max_lnc = 2;  // LNC=2: two physical cores sharing one HBM stack (machine.md §12, LNC; Trn3 supported too)
  // Engine clocks: machine.md §3 (ARCH3).
  t.tensor_ghz = 2.4;
  t.vector_ghz = 0.96;
  t.scalar_ghz = 1.2;
  t.gpsimd_ghz = 1.2;
  t.sync_ghz = 1.2;  // profiler base clock of Trn2 (machine.md §3, NX)
  t.profiler_ghz = 1.2;  // NeuronCore base clock of Trn2 (machine.md §3, NX)
  t.sbuf_partition_bytes = 224 * 1024;  // 28 MiB (machine.md §1, ARCH3)
  // 23 B/ns per engine (DMABW table); matches the measured 32 KiB single-engine transfer (machine.md §11).
  t.dma_engine_bytes_per_ns = 23;
  t.hbm_bytes_per_ns = 362;  // [inferred] 725 GB/s per stack shared by 2 cores (machine.md §11)
  t.hbm_capacity_bytes = 24.0 * (1ull << 30);  // [inferred] 96 GiB = 4 stacks; one stack per LNC=2 core
  t.vector_perf_mode = 1;  // NC-v3 2x/4x Vector performance modes (machine.md §6, ARCH3)
  // NC-v3 VectorE moves "512 BF16/FP16 in/out, 256 other dtypes" per cycle (machine.md §3, ARCH3), and the fast-mode
  // text names only BF16/FP16. [inferred] FP8 with a 16-bit or FP8 partner runs at the table's 256 (2x): the quantising
  // tensor_scalar (bf16 -> fp8, 16384 elements) of nki-library's rmsnorm_quant takes 8.8 us in AWS's profile images
  // (SDK nki/library/specs/images, bench/fidelity.py's extended group), 1.94 elements per cycle. FP32 stays 1x
  // (machine.md §3's advice; the matmul tutorial's fp32 evacuations calibrate at 1x).
  t.vector_fp8_factor = 2;
  // [conflict] the NC-v3 table gives VectorE 256 elements/cycle for "other dtypes" but the perf-mode text
  // grants 2x/4x only to BF16/FP16 (machine.md §3): FP32 stays at 128/cycle, as machine.md advises.
  // The dI/dt ramp on Trn2 and Trn3 (machine.md §4; SDK tools/neuron-explorer/overview-summary-page.rst,
  // "Understanding throttling": the engine starts at ~50% of its maximum utilisation and ramps to full over ~3 us,
  // re-engaging after any ~3 us window below 50%). It caps FLOP utilisation, so fp32 multiplies never feel it.
  t.pe_throttle = 1;
  // NC-v3: DVE and ACT read PSUM at full rate unless they hit the same bank (machine.md §10, ARCH3).
  t.psum_bank_conflicts = 1;
  t.dma_hwdge_ns = 600;    // hardware-DGE DMA instruction ~600 ns on NC-v3 (machine.md §11, ARCH3 + DGE)
  // [inferred] From NC-v3 the compiler spreads DMA triggers over Sync and the engines with no compute work, each to
  // the one that holds no later transfer back: the matmul tutorial's M,N,K step (SDK nki/img/how-to/v5-full.png,
  // Trn2) shows Scalar and GpSimd instructions throughout though the kernel has none of its own, and 5403 Vector
  // instructions (v5-vec.png) for its 5120 Vector compute instructions, so not its ~1800 spill / reload triggers;
  // "The compute engine to initiate a DGE command (Sync Engine or ScalarE) is currently determined by NKI
  // compiler" (nki/guides/architecture/trainium2_arch.rst).
  t.dma_trigger_spread = 1;
  t.dma_dge_blocks = 2;    // 2 DGE blocks per core (machine.md §11, DGE)
  // The Neuron compiler uses hardware DGE by default on Trainium2 from 2.19.8089.0 (06/2025; SDK
  // release-notes/components/compiler.rst), and NKI leaves dge_mode=unknown to it ("The compiler selects the best
  // mode based on the target hardware", nki/deep-dives/nki-dge.rst). Profiles of nki.jit kernels on trn2 report
  // 98.5-98.9% of the DMA bytes and 100% of the packets as dynamic (descriptor-generated), nearly all hardware
  // ("Hardware Dynamic DMA Packet Count" 5,278,880 against 12,416 software; github.com/KevGomes1403/
  // nki-moe-megakernel kernels/attn_cte/PROFILING.md). [inferred] Legacy neuronxcc.nki kernels keep host-built
  // descriptors (dma_dge_mode 0): the nki-samples figures they were timed by (bench/fidelity.py's pooling group and
  // the rmsnorm_qkv / SD-attention thresholds) leave no room for 600 ns more per transfer (docs/cost-model.md,
  // "Session 19").
  t.dma_dge_mode_nki = 2;
  // [conflict] chip HBM 2.9 TB/s (HWPAGES, old ARCH3) vs 3 TB/s (current ARCH3): we take 2.9 TB/s / 4 stacks
  // = 725 GB/s, the per-stack figure machine.md §11 uses. MBU peak = one stack (machine.md §12, NX).
  t.hbm_peak_bytes_per_ns = 725;
  t.pe_fp32_transpose_factor = 2;  // NC-v3 transpose mode: FP32 transpose 2x faster than the FP32 matmul (ARCH3)
  return t;
}

TargetDesc make_trn3() {
  TargetDesc t = make_trn2();
  t.name = "trn3";
  t.nc_version = 4;
  // Engine clocks: machine.md §3 (ARCH4).
  t.tensor_ghz = 2.4;
  t.vector_ghz = 1.2;
  t.scalar_ghz = 1.2;
  t.gpsimd_ghz = 1.2;
  t.sync_ghz = 1.2;                     // [inferred] no Trn3 profiler base clock published; as Trn2
  t.profiler_ghz = 1.2;                 // [inferred] as Trn2
  t.sbuf_partition_bytes = 256 * 1024;  // 32 MiB (machine.md §1, ARCH4)
  t.dma_engine_bytes_per_ns = 33;       // DMABW table (machine.md §11); [conflict] 38.4 GB/s in DMAOV
  t.dma_compute_sbuf_rmw_factor = 1;    // NC-v4 SBUF read-add-write at copy speed (nki-isa.md §3.5, ARCH4)
  t.hbm_bytes_per_ns = 590;             // [inferred] ~4.7 TB/s chip / 8 cores (machine.md §11)
  t.hbm_capacity_bytes = 36.0 * (1ull << 30);  // [inferred] 144 GB / 4 stacks, one per LNC=2 core
  t.vector_perf_fp8 = 1;     // NC-v4 VectorE: 512 elements/cycle for BF16/FP16/FP8 (machine.md §3, ARCH4)
  t.scalar_fast_factor = 2;  // NC-v4 ScalarE: 256 BF16/FP16/FP8 vs 128 other (machine.md §3, §7, ARCH4)
  // [conflict] chip HBM 4.7 TB/s (ARCH4) vs 4.9 TB/s (HWPAGES, derived from UltraServer totals): we take the
  // architecture guide's 4.7 TB/s / 4 stacks = 1175 GB/s per stack.
  t.hbm_peak_bytes_per_ns = 1175;
  return t;
}

// P(field, lo, hi, integer, unit, doc): the valid settings are lo <= value <= hi (whole numbers when
// `integer`); every built-in target lies inside (tests/isa/test_table.cpp) and --param is checked against it.
#define P(field, lo, hi, integer, unit, doc) TargetParam{#field, &TargetDesc::field, unit, doc, lo, hi, integer}
const TargetParam kParams[] = {
    P(tensor_ghz, 1e-3, 1e3, false, "GHz", "Tensor Engine clock"),
    P(vector_ghz, 1e-3, 1e3, false, "GHz", "Vector Engine clock"),
    P(scalar_ghz, 1e-3, 1e3, false, "GHz", "Scalar Engine clock"),
    P(gpsimd_ghz, 1e-3, 1e3, false, "GHz", "GpSimd Engine clock"),
    P(sync_ghz, 1e-3, 1e3, false, "GHz", "Sync sequencer clock"),
    P(partitions, 1, 128, true, "", "SBUF/PSUM partitions"),
    P(sbuf_partition_bytes, 64, 16777216, true, "B", "SBUF bytes per partition"),
    P(sbuf_reserved_bytes, 0, 16777216, true, "B", "SBUF bytes per partition the compiler keeps (not for automatic allocation)"),
    P(psum_partition_bytes, 64, 1048576, true, "B", "PSUM bytes per partition"),
    P(psum_banks, 1, 32, true, "", "PSUM banks per partition"),
    P(min_ii_cycles, 0, 1e6, false, "cycles", "MIN_II: minimum initiation interval of a streaming instruction"),
    P(gpsimd_start_cycles, 0, 1e6, false, "cycles", "GPSIMD_START: GpSimd instruction start-up"),
    P(min_ii_dynamic_cycles, 0, 1e6, false, "cycles", "MIN_II_DYNAMIC: floor of an instruction with a dynamic-offset operand"),
    P(dma_engines, 1, 256, true, "", "DMA engines per NeuronCore"),
    P(dma_queues, 1, 256, true, "", "DMA queues per engine"),
    P(dma_partitions_per_engine, 1, 128, true, "", "partitions each DMA engine serves by default"),
    P(dma_engine_bytes_per_ns, 1e-3, 1e6, false, "B/ns", "bandwidth of one DMA engine"),
    P(dma_fixed_ns, 0, 1e9, false, "ns", "fixed cost of a DMA transfer before data moves"),
    P(dma_trigger_cycles, 0, 1e6, false, "cycles", "cost of a DMA trigger on the issuing sequencer"),
    P(control_cycles, 0, 1e6, false, "cycles", "cost of a sequencer control instruction"),
    P(sequencer_registers, 1, 1024, true, "", "32-bit scalar registers per sequencer"),
    P(max_lnc, 1, 2, true, "", "largest LNC (physical cores per logical core)"),
    P(core_barrier_ns, 0, 1e9, false, "ns", "core_barrier: the semaphore write reaching the other core"),
    P(hbm_bytes_per_ns, 0, 1e6, false, "B/ns", "this core's share of HBM bandwidth"),
    P(hbm_capacity_bytes, 1048576, 1099511627776, true, "B", "HBM a (logical) core's program may address: every tensor must fit below it"),
    P(pe_rows, 1, 128, true, "", "Tensor Engine PE rows"),
    P(pe_cols, 1, 128, true, "", "Tensor Engine PE columns"),
    P(profiler_ghz, 1e-3, 1e3, false, "GHz", "profiler base clock: total_cycles = total_ns x this"),
    P(act_read_accumulator_cycles, 0, 1e6, false, "cycles", "ScalarE accumulator read-out (activation reduce_res)"),
    P(access_overhead_cycles, 0, 1e6, false, "cycles", "SBUF/PSUM access initiation, exposed on RAW-dependent instructions"),
    P(dep_static_cycles, 0, 1e6, false, "cycles", "static overhead of a RAW-dependent back-to-back instruction"),
    P(vector_raw_handoff_cycles, 0, 1e6, false, "cycles", "Vector: a RAW-dependent instruction's start after its producer's end (or the releasing semaphore update)"),
    P(scalar_raw_handoff_cycles, 0, 1e6, false, "cycles", "Scalar: a RAW-dependent instruction's start after its producer's end"),
    P(kernel_launch_ns, 0, 1e9, false, "ns", "runtime preamble before the kernel's first instruction (device_ns)"),
    P(kernel_teardown_ns, 0, 1e9, false, "ns", "runtime teardown after the kernel's last completion (device_ns)"),
    P(stride_penalty_bytes, 0, 1e9, false, "B", "innermost stride above which an access runs at reduced rate"),
    P(stride_penalty_factor, 1e-3, 1e3, false, "", "streaming-time factor of the stride penalty"),
    P(vector_perf_mode, 0, 1, true, "0/1", "Vector 2x/4x performance modes (NC-v3+)"),
    P(vector_perf_fp8, 0, 1, true, "0/1", "Vector performance modes also for FP8 (NC-v4)"),
    P(vector_fp8_factor, 0, 8, false, "x", "Vector copy-kind speed-up for FP8 with a 16-bit/FP8 partner when vector_perf_fp8 is 0 (NC-v3)"),
    P(scalar_fast_factor, 1e-3, 1e3, false, "", "Scalar speed-up for BF16/FP16/FP8 operands (NC-v4: 2)"),
    P(pe_background_ls, 0, 1, true, "0/1", "LoadStationary overlaps the previous MultiplyMoving"),
    P(pe_throttle, 0, 1, true, "0/1", "model the Tensor Engine dI/dt throttling ramp (Trn2/Trn3)"),
    P(pe_throttle_start, 1e-3, 1, false, "", "throttling: initial fraction of peak"),
    P(pe_throttle_ramp_ns, 0, 1e9, false, "ns", "throttling: ramp time to 100%"),
    P(pe_throttle_window_ns, 0, 1e9, false, "ns", "throttling: utilisation window"),
    P(pe_throttle_threshold, 0, 1, false, "", "throttling: utilisation below which the limit re-engages"),
    P(pe_drain_ns, 0, 1e9, false, "ns", "a multiply's pipeline drain, counted as Tensor Engine active time"),
    P(psum_bank_conflicts, 0, 1, true, "0/1", "Vector/Scalar PSUM accesses serialise on a shared bank"),
    P(dma_buffer_overhead_ns, 0, 1e9, false, "ns", "DMA engine cost per contiguous buffer"),
    P(dma_buffer_min_ns, 0, 1e9, false, "ns", "least DMA engine time per contiguous buffer (packet rate)"),
    P(dma_page_bytes, 0, 1e12, false, "B", "HBM page (DRAM row) size for dma_page_ns (0: no page cost)"),
    P(dma_page_ns, 0, 1e9, false, "ns", "least DMA engine time for a buffer that starts in another HBM page"),
    P(dma_page_shared, 0, 1, true, "0/1", "DMA engines whose partition rows lie within one page share its openings (1) or each pays its own (0)"),
    P(dma_share_interval_ns, 0, 1e9, false, "ns", "shortest interval between two share starts on one DMA engine (its transfer rate)"),
    P(dma_engine_stagger_ns, 0, 1e9, false, "ns", "the DMA engines of a transfer start this far apart, the last one dma_fixed_ns after the trigger"),
    P(tile_buffers, 1, 64, true, "", "physical buffers the compiler rotates an automatically allocated SBUF tile's live ranges through (ir/rename.cpp)"),
    P(list_schedule, 0, 1, true, "0/1", "the compiler's list scheduler and workload engine choice for copies (1), or program order (0) (ir/list_schedule.cpp)"),
    P(dma_trigger_spread, 0, 1, true, "0/1", "DMAs without engine= triggered by Sync or an engine with no compute work (1), else by their input's producer or Sync (0)"),
    P(dma_hwdge_ns, 0, 1e9, false, "ns", "hardware DGE time per DMA instruction (0: no hardware DGE)"),
    P(dma_dge_blocks, 0, 64, true, "", "hardware DGE blocks per core"),
    P(dma_swdge_cycles_per_buffer, 0, 1e6, false, "cycles", "software DGE: GpSimd cycles per descriptor"),
    P(dma_dge_mode, 0, 3, true, "", "DGE mode of dge_mode=unknown static DMA transfers: 0 unknown (= none), 1 swdge, 2 hwdge, 3 none"),
    P(dma_dge_mode_nki, 0, 3, true, "", "the same for the dge_mode=unknown transfers of nki.jit kernels (dge 4)"),
    P(dma_transpose_hbm_factor, 1e-3, 1e3, false, "", "dma_transpose throughput as a fraction of copy throughput (HBM source)"),
    P(dma_transpose_sbuf_factor, 1e-3, 1e3, false, "", "dma_transpose throughput as a fraction of copy throughput (SBUF source)"),
    P(dma_compute_factor, 1e-3, 1e3, false, "", "dma_compute throughput as a fraction of copy throughput"),
    P(dma_compute_sbuf_rmw_factor, 1e-3, 1e3, false, "", "dma_compute SBUF read-add-write throughput as a fraction of copy throughput"),
    P(hbm_peak_bytes_per_ns, 1e-3, 1e6, false, "B/ns", "one HBM stack's bandwidth: the peak of mbu_estimated_percent"),
    P(mm_init_cycles, 0, 1e6, false, "cycles", "MM_INIT_LATENCY: minimum Tensor Engine multiply initiation interval"),
    P(ls_speedup, 1e-3, 1e3, false, "", "LoadStationary speed-up over a multiply of the same free size"),
    P(pe_fp32_factor, 1e-3, 1e3, false, "", "Tensor Engine cost factor of float32 matmul inputs"),
    P(pe_fp32_transpose_factor, 1e-3, 1e3, false, "", "Tensor Engine cost factor of 4-byte transposes"),
    P(pe_mx_macs_per_cycle, 1e-3, 1e6, false, "", "MX matmul MACs per PE per cycle (nc_matmul_mx, trn3)"),
};
#undef P

}  // namespace

double TargetDesc::engine_ghz(Engine e) const {
  switch (e) {
    case Engine::Tensor: return tensor_ghz;
    case Engine::Vector: return vector_ghz;
    case Engine::Scalar: return scalar_ghz;
    case Engine::GpSimd: return gpsimd_ghz;
    case Engine::Sync: return sync_ghz;
  }
  return sync_ghz;
}

std::span<const TargetParam> target_params() { return kParams; }

std::optional<TargetDesc> find_target(std::string_view name) {
  if (name == "trn1") return make_trn1();
  if (name == "trn2") return make_trn2();
  if (name == "trn3") return make_trn3();
  return std::nullopt;
}

bool set_target_param(TargetDesc& t, std::string_view name, double value) {
  for (auto& p : kParams)
    if (name == p.name) {
      if (!(value >= p.lo && value <= p.hi) || (p.integer && value != std::floor(value))) {
        std::ostringstream os;
        os.precision(15);
        os << "target parameter '" << p.name << "' must be " << (p.integer ? "a whole number" : "a number")
           << " from " << p.lo << " to " << p.hi << (*p.unit ? std::string(" ") + p.unit : "") << ", got " << value;
        throw Error(os.str());
      }
      t.*(p.field) = value;
      return true;
    }
  return false;
}

namespace {
std::string tensor_fit_error(const HbmTensor& h, uint64_t capacity, const std::string& cap) {
  const std::string what = "tensor '" + h.name + "'";
  uint64_t elements = 1;
  for (int64_t d : h.shape) {
    if (d < 0) return what + ": negative dimension " + std::to_string(d);
    if (__builtin_mul_overflow(elements, uint64_t(d), &elements) || elements > capacity)
      return what + ": the shape has more elements than the target's HBM holds" + cap;
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, uint64_t(dtype_size(h.dtype)), &bytes) || bytes > capacity)
    return what + ": the shape needs more bytes than the target's HBM holds" + cap;
  if (h.bytes != bytes)
    return what + ": bytes=" + std::to_string(h.bytes) + " but its shape and dtype take " + std::to_string(bytes) +
           " bytes";
  if (h.address > capacity || h.bytes > capacity - h.address)
    return what + ": address " + std::to_string(h.address) + " + " + std::to_string(h.bytes) +
           " bytes is past the end of the target's HBM" + cap;
  return "";
}
}  // namespace

void check_program_fits(const Program& p, const TargetDesc& t, const std::string& file) {
  const std::optional<SourceLoc> loc = file.empty() ? std::nullopt : std::optional<SourceLoc>(SourceLoc{file});
  const uint64_t capacity = uint64_t(t.hbm_capacity_bytes);
  const std::string cap = " (" + t.name + " HBM capacity " + std::to_string(capacity) +
                          " bytes; --param hbm_capacity_bytes=N raises it)";
  // Semaphore indices are 16-bit (isa::SemWait); more counters than that cannot be named.
  if (p.num_semaphores > 65536)
    throw Error("program declares " + std::to_string(p.num_semaphores) + " semaphores; at most 65536 can be addressed",
                loc);
  if (p.hbm_bytes > capacity)
    throw Error("program declares .hbm_bytes " + std::to_string(p.hbm_bytes) + cap, loc);
  for (const HbmTensor& h : p.hbm_tensors)
    if (std::string e = tensor_fit_error(h, capacity, cap); !e.empty()) throw Error(e, loc);
}

void check_lnc(const TargetDesc& t, int64_t lnc, std::optional<SourceLoc> loc) {
  const int64_t max = int64_t(t.max_lnc);
  if (lnc >= 1 && lnc <= max) return;
  throw Error("LNC=" + std::to_string(lnc) + ": " + t.name + " supports " +
                  (max == 1 ? std::string("only LNC=1") : "LNC=1 to " + std::to_string(max)),
              std::move(loc));
}

}  // namespace nkisim::isa
