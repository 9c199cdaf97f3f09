// cost_mx.cpp - cost classes of scalar_tensor_tensor, nc_n_gather and the MX Tensor Engine instructions
// (isa/costs.def, last block). Cycles are cycles of the executing engine's clock.
//
//   scalar_tensor_tensor: max(MIN_II, N) when data and operand1 are bfloat16, op0 = subtract, op1 = multiply and
//                         N is even, else max(MIN_II, 2N) (nki-isa.md §3.3, ISA-OLD; the MIN_II floor as every
//                         other Vector instruction), with the usual stride penalty (isa/cost.cpp). Also
//                         max(MIN_II, N) when one of data / operand1 is in PSUM: the two streams then come from
//                         different memories, as for tensor_tensor (the ISA reference: "approximately the same
//                         latency as a regular tensor_tensor"). Measured: AWS's rmsnorm_quant profile (trn2, SDK
//                         nki/library/specs/images/profile_phase_2.png) runs 32 of them, [80, 512] bf16 with an
//                         fp32 PSUM operand1, in ~23.4 us on Vector: 0.73 us each, nearer N = 512 cycles at
//                         0.96 GHz (0.53 us) than 2N (1.07 us); the ~190 cycles more are not modelled.
//   n_gather:             ceil(N / 512) x GPSIMD_START + N, N = dst elements per partition: nc_n_gather lowers
//                         to ceil(N / 512) ISA instructions (nki-isa.md §3.4), each paying the GpSimd start-up;
//                         one element per cycle is our estimate ([inferred]: no formula is published).
//   load_stationary_mx:   as load_stationary: ceil(max(MM_INIT, M) / LS_SPEEDUP), M = stationary free size
//                         (x4 elements = PE columns).
//   multiply_moving_mx:   max(min(MM_INIT, M), N) x 4 / PE_MX_MACS: every PE does 4 MACs per moving element (the
//                         4 packed values) at pe_mx_macs_per_cycle MACs per cycle, so with the published 4
//                         (nki-isa.md §3.1 [A3]) a K = 4 x 128 MX pass takes the time of a K = 128 bf16 pass:
//                         4x the bf16 throughput.
#include <algorithm>
#include <cmath>
#include <string>

#include "isa/cost.h"

namespace nkisim::isa {
using isa::Engine;

double cost_scalar_tensor_tensor(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern &data = ins.operands[1], &b = ins.operands[3];
  const double n = main_free_elements(ins);
  const bool fast = data.dtype == isa::DType::bfloat16 && b.dtype == isa::DType::bfloat16 &&
                    ins.params.op0 == isa::AluOp::subtract && ins.params.op1 == isa::AluOp::multiply &&
                    std::fmod(n, 2.0) == 0.0;
  const bool one_psum = (data.mem == isa::Memory::PSUM) != (b.mem == isa::Memory::PSUM);
  if (fast || one_psum) {
    if (CostNote* note = cost_note())
      note->add("single pass", fast ? "bf16 subtract -> multiply, N even" : "one of data / operand1 in PSUM");
    return streaming_ns(ins, e, t, n, 1, 1, "max(MIN_II, N)");
  }
  return streaming_ns(ins, e, t, n, 2, 1, "max(MIN_II, 2N)");
}

double cost_n_gather(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const double n = double(ins.operands[0].free_elements());
  const double parts = std::max(1.0, std::ceil(n / 512.0));
  const double cycles = parts * t.gpsimd_start_cycles + n;
  if (CostNote* note = cost_note()) {
    note->formula = "ceil(N / 512) x GPSIMD_START + N";
    note->add("N", n);
    note->add("ISA instructions", parts);
    note->add("GPSIMD_START", t.gpsimd_start_cycles);
    note->cycles = cycles;
  }
  return cycles_ns(cycles, e, t);
}

double cost_multiply_moving_mx(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern& dst = ins.operands[0];
  const double m = double(dst.num_partitions), n = double(dst.free_elements());
  const double rate = std::max(1e-9, t.pe_mx_macs_per_cycle);
  const double c = std::max(std::min(t.mm_init_cycles, m), n) * 4.0 / rate;
  if (CostNote* note = cost_note()) {
    note->formula = "max(min(MM_INIT, M), N) x 4 / PE_MX_MACS";
    note->add("M", m);
    note->add("N", n);
    note->add("MM_INIT", t.mm_init_cycles);
    note->add("PE_MX_MACS", t.pe_mx_macs_per_cycle);
    note->cycles = c;
  }
  return cycles_ns(c, e, t);
}

}  // namespace nkisim::isa
