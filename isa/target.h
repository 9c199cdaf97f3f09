// target.h - hardware parameters per target (trn1, trn2, trn3) as data, each with its source.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "isa/instruction.h"

namespace nkisim::isa {

// All timing parameters are doubles so any of them can be overridden by name (`--param name=value`).
struct TargetDesc {
  std::string name;     // "trn1" | "trn2" | "trn3"
  int nc_version = 3;   // NeuronCore generation: 2, 3, 4
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0, sync_ghz = 0;
  double partitions = 128;
  double sbuf_partition_bytes = 0;
  double psum_partition_bytes = 0;
  double psum_banks = 0;
  double min_ii_cycles = 0;        // MIN_II floor of streaming instructions
  double gpsimd_start_cycles = 0;  // GPSIMD_START
  double dma_engines = 0;
  double dma_queues = 0;
  double dma_partitions_per_engine = 0;
  double dma_engine_bytes_per_ns = 0;
  double dma_fixed_ns = 0;          // descriptor + sync + semaphore-to-start latency per transfer
  double dma_trigger_cycles = 0;    // cost of the trigger instruction on the issuing sequencer
  double control_cycles = 0;        // cost of a sequencer control instruction (semaphore wait/update)
  double hbm_bytes_per_ns = 0;      // this core's share of HBM bandwidth
  double pe_rows = 128, pe_cols = 128;
  double profiler_ghz = 0;  // base clock of the profiler's neuroncore_cycle_count (total_cycles)

  double engine_ghz(Engine e) const;
};

struct TargetParam {
  const char* name;
  double TargetDesc::*field;
  const char* unit;
  const char* doc;
};
std::span<const TargetParam> target_params();

std::optional<TargetDesc> find_target(std::string_view name);  // a fresh copy of the built-in data
// Sets a parameter by name; returns false if no such parameter.
bool set_target_param(TargetDesc& t, std::string_view name, double value);

}  // namespace nkisim::isa
