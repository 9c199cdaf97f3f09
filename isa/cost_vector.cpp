// cost_vector.cpp - cost classes of the Vector/Scalar/GpSimd extras (isa/costs.def, second block).
//
// Formulas (nki-isa.md §2 and §3.2-3.4, [ISA-old] estimates); cycles of the executing engine's clock;
// N = elements per partition of the main input (operand slot 1, or slot 0 when the instruction has only a
// destination):
//   reduce:           N/2 when data and dst are both bfloat16 and op0 is add or maximum, else N (tensor_reduce;
//                     no MIN_II floor is published).
//   stream_reduce:    max(MIN_II, N) + MIN_II (tensor_scalar_reduce).
//   accumulator_read: act_read_accumulator_cycles (ActReadAccumulator, ~64 ScalarE cycles).
//   scan:             max(MIN_II, 2N) (tensor_tensor_scan).
//   gpsimd_stream:    GPSIMD_START + N (iota, affine_select; also our estimate for GpSimd ops without one).
//   bn_aggr:          max(MIN_II, 13 * (N / 3)).
//   reciprocal:       max(MIN_II, 8N) (VectorE reciprocal is ~8x slower than ScalarE's).
//   quarter_stream:   max(MIN_II, N / 4): exponential (4x the throughput of ScalarE activation(exp)) and rand2
//                     (4 x 32-bit random values per lane per cycle) [A3].
//   copy_predicated:  max(MIN_II, N) when exactly one of src/predicate is in PSUM, else max(MIN_II, 2N).
//   linear:           N (max8, nc_find_index8).
//   local_gather:     GPSIMD_START + V * (7 + K) / min(4 / dtype_size, K), V = num_valid indices of K = elem_per_idx
//                     elements: the published 150 + (V*K)/C with C = ((28 + 4K) / 4K) / min(4/size, K) taken
//                     literally makes larger K slower per byte; multiplying by C instead matches the stated
//                     intent (nki-isa.md §3.4 calls it ambiguous).
//   topk:             4n + K GpSimd cycles per partition (the only formula the current docs keep), n = num_valid,
//                     K = val_dst free size.
#include <algorithm>

#include "isa/cost.h"

namespace nkisim::isa {
using isa::Memory;

// Every class goes through streaming_ns (isa/cost.h), so each gets the >16-byte stride penalty and an
// --explain breakdown; `false` = a formula published without the MIN_II floor / GpSimd start-up.
double cost_reduce(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const bool bf16 = ins.operands[0].dtype == isa::DType::bfloat16 && ins.operands[1].dtype == isa::DType::bfloat16;
  const bool fast_op = ins.params.op0 == isa::AluOp::add || ins.params.op0 == isa::AluOp::maximum;
  if (bf16 && fast_op) return streaming_ns(ins, e, t, main_free_elements(ins), 0.5, 1, "N/2 (bf16 add/max)", 0, false);
  return streaming_ns(ins, e, t, main_free_elements(ins), 1, 1, "N", 0, false);
}

double cost_stream_reduce(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 1, 1, "max(MIN_II, N) + MIN_II", t.min_ii_cycles);
}

double cost_accumulator_read(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, 0, 1, 1, "ACT_READ_ACCUMULATOR", t.act_read_accumulator_cycles, false);
}

double cost_scan(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 2, 1, "max(MIN_II, 2N)");
}

double cost_gpsimd_stream(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 1, 1, "N");
}

double cost_bn_aggr(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 13.0 / 3.0, 1, "max(MIN_II, 13 * (N / 3))");
}

double cost_reciprocal(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 8, 1, "max(MIN_II, 8N)");
}

double cost_quarter_stream(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 0.25, 1, "max(MIN_II, N / 4)");
}

double cost_copy_predicated(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  // Slots: dst, src (optional), predicate. An absent src (immediate) counts as not in PSUM.
  const bool src_psum = ins.operands[1].mem == Memory::PSUM, pred_psum = ins.operands[2].mem == Memory::PSUM;
  const double n = double(ins.operands[0].free_elements());
  if (src_psum != pred_psum) return streaming_ns(ins, e, t, n, 1, 1, "max(MIN_II, N) (one side in PSUM)");
  return streaming_ns(ins, e, t, n, 2, 1, "max(MIN_II, 2N)");
}

double cost_linear(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, main_free_elements(ins), 1, 1, "N", 0, false);
}

double cost_local_gather(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern &dst = ins.operands[0], &index = ins.operands[2];
  const double k = std::max<double>(1, ins.params.elem_per_idx);
  // V = num_valid, else every index of a core (16 partitions x the index tile's free size).
  const double v = ins.params.num_valid > 0 ? ins.params.num_valid : 16.0 * double(index.free_elements());
  const double per_word = std::max(1.0, 4.0 / std::max(1u, isa::dtype_size(dst.dtype)));
  return streaming_ns(ins, e, t, v, (7 + k) / std::min(per_word, k), 1, "V * (7 + K) / min(4 / size, K)");
}

double cost_topk(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return streaming_ns(ins, e, t, double(ins.params.num_valid), 4, 1, "4n + K",
                      double(ins.operands[0].free_elements()), false);
}

}  // namespace nkisim::isa
