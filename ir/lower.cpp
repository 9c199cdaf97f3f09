// lower.cpp - the back end driver: engines -> allocation -> access patterns -> semaphores -> Program.
#include "ir/lower.h"

#include "ir/passes.h"

namespace nkisim::ir {

isa::Program lower(const Kernel& k, const isa::TargetDesc& target) {
  isa::Program p;
  p.target = target.name;
  p.kernel_name = k.name;
  std::vector<isa::Engine> engines = assign_engines(k);
  std::vector<Placement> pl = allocate(k, target, p);
  std::vector<std::vector<isa::AccessPattern>> operands(k.ops.size());
  for (size_t i = 0; i < k.ops.size(); ++i) {
    const Op& op = k.ops[i];
    const isa::InstrInfo& in = isa::info(op.opcode);
    operands[i].resize(in.num_operands);
    for (int s = 0; s < in.num_operands; ++s) {
      if (op.operands[size_t(s)]) operands[i][size_t(s)] = to_access_pattern(k, pl, *op.operands[size_t(s)], op, s, target);
      else if (in.operands[size_t(s)].required)
        throw error_at(op, std::string(in.mnemonic) + ": missing operand '" + in.operands[size_t(s)].name + "'");
    }
  }
  emit_with_semaphores(k, engines, operands, target, p);
  return p;
}

}  // namespace nkisim::ir
