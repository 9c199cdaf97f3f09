// dynamic_offset.cpp - lowering the run-time offsets of on-chip compute operands (ir::DynOperand) to
// isa::DynOffset: where the offset is read (SBUF address or register) and the base tensor's bytes the moved
// operand must stay in (docs/dynamic-offsets.md).
#include <climits>

#include "ir/passes.h"

namespace nkisim::ir {

void lower_dynamic_operands(const Kernel& k, const std::vector<Placement>& pl, const Op& op, isa::Instruction& ins) {
  const isa::InstrInfo& in = isa::info(op.opcode);
  for (const DynOperand& d : op.dynamic) {
    isa::AccessPattern& ap = ins.operands[size_t(d.slot)];
    const std::string what = std::string(in.mnemonic) + ": operand '" + in.operands[size_t(d.slot)].name + "'";
    if (!ap.present() || ap.mem == isa::Memory::HBM)
      throw error_at(op, what + ": a dynamic offset needs an on-chip operand");
    const View& v = *op.operands[size_t(d.slot)];
    const Tensor& base = k.tensors.at(size_t(v.tensor));
    const Placement& bp = pl.at(size_t(v.tensor));
    int64_t part_bytes = isa::dtype_size(base.dtype);
    for (size_t i = 1; i < base.shape.size(); ++i) part_bytes *= base.shape[i];
    if (d.row_stride > INT32_MAX || bp.address + part_bytes > INT32_MAX)
      throw error_at(op, what + ": a dynamic offset stride or tensor size beyond 2^31 is not supported");
    ap.dyn.stride = int32_t(d.row_stride);
    ap.dyn.lo = int32_t(bp.address);
    ap.dyn.hi = int32_t(bp.address + part_bytes);
    if (d.reg >= 0) {
      ap.dyn.kind = isa::DynOffset::Reg;
      ap.dyn.src = uint16_t(d.reg);
      continue;
    }
    const View& ov = *d.offsets;
    const Tensor& ot = k.tensors.at(size_t(ov.tensor));
    const Placement& op_pl = pl.at(size_t(ov.tensor));
    const int64_t oes = isa::dtype_size(ov.dtype);
    int64_t f = isa::dtype_size(ot.dtype);  // elements (of the view's dtype) per partition of the offsets tensor
    for (size_t i = 1; i < ot.shape.size(); ++i) f *= ot.shape[i];
    f /= oes;
    ap.dyn.kind = isa::DynOffset::Sbuf;
    ap.dyn.dtype = ov.dtype;
    ap.dyn.src = uint16_t(op_pl.partition + (f > 0 ? ov.offset / f : 0));
    ap.dyn.addr = int32_t(op_pl.address + (f > 0 ? ov.offset % f : 0) * oes);
  }
}

}  // namespace nkisim::ir
