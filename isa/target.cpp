// target.cpp - the built-in hardware descriptions of trn1 (NC-v2), trn2 (NC-v3) and trn3 (NC-v4).
// Every number cites ../shared/spec (machine.md section or nki-isa.md section and the source tag there).
// [inferred] marks a value no source states; each is overridable with --param NAME=VALUE.
#include "isa/target.h"

#include <array>

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
  t.psum_partition_bytes = 16 * 1024;   // 2 MiB / 128 = 8 banks x 2 KiB (machine.md §5)
  t.psum_banks = 8;                     // machine.md §5
  t.min_ii_cycles = 64;                 // MIN_II (machine.md §9, ISA-OLD)
  t.gpsimd_start_cycles = 150;          // GPSIMD_START (machine.md §8, ISA-OLD)
  t.dma_engines = 16;                   // per NeuronCore, all gens (machine.md §11)
  t.dma_queues = 16;                    // per engine (machine.md §11, DMAOV)
  t.dma_partitions_per_engine = 8;      // 128 partitions / 16 engines (machine.md §11, DMAOV)
  // [conflict] 27 GiB/s (ARCH2) / 27.2 GB/s (DMAOV) vs 17 B/ns (DMABW table): we take the DMABW table, the
  // source that also gives the Trn2 figure matching a measured transfer (machine.md §11, §14.1).
  t.dma_engine_bytes_per_ns = 17;
  t.dma_fixed_ns = 1300;  // descriptor + sync + semaphore-to-start per transfer (machine.md §11, DMABW)
  t.dma_trigger_cycles = 64;  // [inferred] a DMA trigger costs one MIN_II on the issuing sequencer
  t.control_cycles = 4;       // [inferred] semaphore wait/update control instruction
  t.hbm_bytes_per_ns = 410;   // [inferred] 820 GB/s chip / 2 cores (machine.md §11)
  t.profiler_ghz = 1.4;       // NeuronCore base clock of Trn1 for neuroncore_cycle_count (machine.md §3, NX)
  return t;
}

TargetDesc make_trn2() {
  TargetDesc t = make_trn1();
  t.name = "trn2";
  t.nc_version = 3;
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
  t.hbm_bytes_per_ns = 590;             // [inferred] ~4.7 TB/s chip / 8 cores (machine.md §11)
  return t;
}

#define P(field, unit, doc) TargetParam{#field, &TargetDesc::field, unit, doc}
const TargetParam kParams[] = {
    P(tensor_ghz, "GHz", "Tensor Engine clock"),
    P(vector_ghz, "GHz", "Vector Engine clock"),
    P(scalar_ghz, "GHz", "Scalar Engine clock"),
    P(gpsimd_ghz, "GHz", "GpSimd Engine clock"),
    P(sync_ghz, "GHz", "Sync sequencer clock"),
    P(partitions, "", "SBUF/PSUM partitions"),
    P(sbuf_partition_bytes, "B", "SBUF bytes per partition"),
    P(psum_partition_bytes, "B", "PSUM bytes per partition"),
    P(psum_banks, "", "PSUM banks per partition"),
    P(min_ii_cycles, "cycles", "MIN_II: minimum initiation interval of a streaming instruction"),
    P(gpsimd_start_cycles, "cycles", "GPSIMD_START: GpSimd instruction start-up"),
    P(dma_engines, "", "DMA engines per NeuronCore"),
    P(dma_queues, "", "DMA queues per engine"),
    P(dma_partitions_per_engine, "", "partitions each DMA engine serves by default"),
    P(dma_engine_bytes_per_ns, "B/ns", "bandwidth of one DMA engine"),
    P(dma_fixed_ns, "ns", "fixed cost of a DMA transfer before data moves"),
    P(dma_trigger_cycles, "cycles", "cost of a DMA trigger on the issuing sequencer"),
    P(control_cycles, "cycles", "cost of a sequencer control instruction"),
    P(hbm_bytes_per_ns, "B/ns", "this core's share of HBM bandwidth"),
    P(pe_rows, "", "Tensor Engine PE rows"),
    P(pe_cols, "", "Tensor Engine PE columns"),
    P(profiler_ghz, "GHz", "profiler base clock: total_cycles = total_ns x this"),
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
      t.*(p.field) = value;
      return true;
    }
  return false;
}

}  // namespace nkisim::isa
