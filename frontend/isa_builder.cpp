// isa_builder.cpp - the hardware rules of an nki.isa call (isa::verify) checked at the call, worded for the NKI API.
#include "frontend/isa_builder.h"

#include "isa/target.h"
#include "isa/verify.h"

namespace nkisim::frontend::isa_binding {
namespace {

// The operand as verify sees it after lowering (ir/access.cpp): memory, dtype, partitions (the first dim on chip and
// for a multi-dim HBM view) and the free elements. Addresses are not known yet: an on-chip operand starts at the
// partition of its view (plus address= when given); lowering verifies again with the final placement.
isa::AccessPattern shape_of(const ir::Kernel& k, const ir::View& v) {
  const ir::Tensor& t = k.tensors.at(size_t(v.tensor));
  isa::AccessPattern ap;
  ap.mem = memory_of(t.buffer);
  ap.dtype = v.dtype;
  const bool rows = ap.mem != isa::Memory::HBM || v.dims.size() > 1;
  ap.num_partitions = uint32_t(rows && !v.dims.empty() ? v.dims[0].count : 1);
  ap.dims[0] = isa::ApDim{1, uint32_t(ap.num_partitions ? v.num_elements() / ap.num_partitions : 0)};
  ap.num_dims = 1;
  if (ap.mem != isa::Memory::HBM) {
    int64_t part = isa::dtype_size(t.dtype);  // elements of the view's dtype per partition of the base tensor
    for (size_t i = 1; i < t.shape.size(); ++i) part *= t.shape[i];
    part /= std::max<int64_t>(1, isa::dtype_size(v.dtype));
    ap.start_partition = uint32_t((t.address ? t.address->first : 0) + (part ? v.offset / part : 0));
  }
  return ap;
}

}  // namespace

void verify_at_call(Interp& in, const ir::Op& op, const char* fname, const std::array<std::string, isa::kMaxOperands>& args) {
  static thread_local std::string name;
  static thread_local std::optional<isa::TargetDesc> target;
  if (!target || name != in.kernel.target) {
    target = isa::find_target(in.kernel.target);
    name = in.kernel.target;
  }
  if (!target) return;
  isa::Instruction ins;
  ins.op = op.opcode;
  ins.params = op.params;
  ins.engine = op.engine.value_or(isa::info(op.opcode).default_engine);
  const char* names[isa::kMaxOperands] = {};
  const char* tensors[isa::kMaxOperands] = {};
  for (int s = 0; s < isa::kMaxOperands; ++s) {
    if (op.operands[size_t(s)]) {
      ins.operands[size_t(s)] = shape_of(in.kernel, *op.operands[size_t(s)]);
      tensors[s] = in.kernel.tensors.at(size_t(op.operands[size_t(s)]->tensor)).name.c_str();
    }
    if (!args[size_t(s)].empty()) names[s] = args[size_t(s)].c_str();
  }
  std::optional<isa::Violation> v = isa::verify(ins, *target, names, tensors);
  if (!v) return;
  const std::string mnemonic = std::string(isa::info(op.opcode).mnemonic) + ": ";
  const bool prefixed = v->message.compare(0, mnemonic.size(), mnemonic) == 0;
  raise("ValueError", std::string(fname) + ": " + v->message.substr(prefixed ? mnemonic.size() : 0));
}

}  // namespace nkisim::frontend::isa_binding
