// engines.cpp - engine assignment: honour engine=, else the instruction table's default engine.
#include "ir/passes.h"

namespace nkisim::ir {

Error error_at(const Op& op, std::string msg) {
  Error e(std::move(msg), op.loc.known() || !op.loc.file.empty() ? std::optional<SourceLoc>(op.loc) : std::nullopt);
  for (auto& c : op.call_chain) e.notes.push_back({c, "called from here"});
  return e;
}

std::vector<isa::Engine> assign_engines(const Kernel& k) {
  std::vector<isa::Engine> out;
  out.reserve(k.ops.size());
  for (auto& op : k.ops) {
    const isa::InstrInfo& in = isa::info(op.opcode);
    isa::Engine e = op.engine.value_or(in.default_engine);
    if (!(in.engines & isa::engine_bit(e)))
      throw error_at(op, std::string(in.mnemonic) + " cannot run on the " + std::string(isa::engine_name(e)) + " engine");
    out.push_back(e);
  }
  return out;
}

}  // namespace nkisim::ir
