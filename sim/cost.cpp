// cost.cpp - the cost classes of isa/costs.def evaluated with the target's parameters.
//
// Formulas (nki-isa.md §2, machine.md §9, §11); cycles are cycles of the executing engine's clock:
//   stream:        max(MIN_II, N), N = elements per partition of the main input (slot 1, or slot 0 when
//                  the instruction has only a destination).
//   tensor_tensor: max(MIN_II, N) when exactly one input is in PSUM, or when both inputs are in SBUF, all
//                  three operands are bfloat16, op0 is add/subtract/multiply and every operand has a unit
//                  inner stride; otherwise max(MIN_II, 2N).
//   control:       control_cycles.
//   dma:           the trigger costs dma_trigger_cycles on the issuing sequencer; the transfer itself is
//                  timed by the scheduler with dma_transfer_plan() below.
#include "sim/cost.h"

#include <algorithm>

namespace nkisim::sim {
using isa::CostClass;
using isa::Memory;

namespace {
double cycles_ns(double cycles, isa::Engine e, const isa::TargetDesc& t) {
  double ghz = t.engine_ghz(e);
  return ghz > 0 ? cycles / ghz : 0.0;
}

double main_free_elements(const isa::Instruction& ins) {
  const isa::AccessPattern& ap = ins.operands[1].present() ? ins.operands[1] : ins.operands[0];
  return double(ap.free_elements());
}
}  // namespace

CostClass cost_class(isa::Opcode op) { return isa::info(op).cost; }

double cost_stream(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  return cycles_ns(std::max(t.min_ii_cycles, main_free_elements(ins)), e, t);
}

double cost_tensor_tensor(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern &dst = ins.operands[0], &a = ins.operands[1], &b = ins.operands[2];
  const double n = main_free_elements(ins);
  const bool one_psum = (a.mem == Memory::PSUM) != (b.mem == Memory::PSUM);
  const bool all_bf16 = dst.dtype == isa::DType::bfloat16 && a.dtype == isa::DType::bfloat16 &&
                        b.dtype == isa::DType::bfloat16;
  const isa::AluOp op = ins.params.op0;
  const bool fast_op = op == isa::AluOp::add || op == isa::AluOp::subtract || op == isa::AluOp::multiply;
  const bool unit = dst.inner_stride() == 1 && a.inner_stride() == 1 && b.inner_stride() == 1;
  const bool both_sbuf = a.mem == Memory::SBUF && b.mem == Memory::SBUF;
  const bool single_pass = one_psum || (both_sbuf && all_bf16 && fast_op && unit);
  return cycles_ns(std::max(t.min_ii_cycles, single_pass ? n : 2 * n), e, t);
}

double cost_dma(const isa::Instruction&, isa::Engine e, const isa::TargetDesc& t) {
  return cycles_ns(t.dma_trigger_cycles, e, t);
}

double cost_control(const isa::Instruction&, isa::Engine e, const isa::TargetDesc& t) {
  return cycles_ns(t.control_cycles, e, t);
}

double engine_ns(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  switch (cost_class(ins.op)) {
#define COST(id)          \
  case CostClass::id:     \
    return cost_##id(ins, e, t);
#include "isa/costs.def"
#undef COST
  }
  return 0;
}

// The transfer is cut into contiguous per-partition buffers: every partition row of the SBUF side (dst if
// it is in SBUF, else src) is one buffer, and absolute partition p goes to DMA engine
// (p / dma_partitions_per_engine) mod dma_engines. HBM -> HBM transfers use the rows of dst, numbered
// from 0. A row moves free_elements x max(src, dst element size) bytes. Engine e is busy for
// max(bytes_e / dma_engine_bytes_per_ns, total_bytes / hbm_bytes_per_ns) when HBM is involved (the
// per-core HBM share caps the whole transfer), else bytes_e / dma_engine_bytes_per_ns.
void dma_transfer_plan(const isa::Instruction& ins, const isa::TargetDesc& t, std::vector<DmaShare>& out) {
  out.clear();
  const isa::AccessPattern &dst = ins.operands[0], &src = ins.operands[1];
  const bool dst_chip = dst.mem == Memory::SBUF || dst.mem == Memory::PSUM;
  const bool src_chip = src.mem == Memory::SBUF || src.mem == Memory::PSUM;
  const isa::AccessPattern& side = dst_chip ? dst : src_chip ? src : dst;
  const bool chip = dst_chip || src_chip;
  const uint32_t engines = uint32_t(std::max(1.0, t.dma_engines));
  const uint32_t ppe = uint32_t(std::max(1.0, t.dma_partitions_per_engine));
  const double row_bytes = double(side.free_elements()) *
                           std::max(isa::dtype_size(dst.dtype), isa::dtype_size(src.dtype));
  if (row_bytes <= 0 || side.num_partitions == 0) return;
  std::vector<double> bytes(engines, 0.0);
  const uint32_t first = chip ? side.start_partition : 0;
  for (uint32_t i = 0; i < side.num_partitions; ++i) bytes[((first + i) / ppe) % engines] += row_bytes;
  const double total = row_bytes * side.num_partitions;
  const bool hbm = dst.mem == Memory::HBM || src.mem == Memory::HBM;
  const double hbm_floor = hbm && t.hbm_bytes_per_ns > 0 ? total / t.hbm_bytes_per_ns : 0.0;
  for (uint32_t e = 0; e < engines; ++e) {
    if (bytes[e] == 0) continue;
    double ns = t.dma_engine_bytes_per_ns > 0 ? bytes[e] / t.dma_engine_bytes_per_ns : 0.0;
    out.push_back({e, bytes[e], std::max(ns, hbm_floor)});
  }
}

}  // namespace nkisim::sim
