// isa_builder.cpp - the hardware rules of an nki.isa call (isa::verify) checked at the call, worded for the NKI API.
#include "frontend/isa_builder.h"

#include "ir/passes.h"
#include "isa/target.h"
#include "isa/verify.h"

namespace nkisim::frontend::isa_binding {

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
    if (const std::optional<ir::View>& v = op.operands[size_t(s)]) {
      // The operand as lowering builds it, placed where the call knows: at address= when given, else at partition
      // 0 (lowering verifies again with the final placement). An operand lowering cannot build (a strided partition
      // dim, more than 4 free dims, ...) is lowering's error, at the same kernel line.
      const ir::Tensor& t = in.kernel.tensors.at(size_t(v->tensor));
      ir::Placement p;
      p.mem = memory_of(t.buffer);
      if (t.address) {
        p.partition = t.address->first;
        p.address = t.address->second;
      }
      try {
        ins.operands[size_t(s)] = ir::to_access_pattern(in.kernel, p, *v, op, s, *target);
      } catch (const Error&) {
        return;
      }
      tensors[s] = t.name.c_str();
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
