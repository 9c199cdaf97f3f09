// engines.cpp - engine assignment: honour engine=, else the instruction table's default engine.
#include "ir/passes.h"

namespace nkisim::ir {

Error error_at(const Op& op, std::string msg) {
  Error e(std::move(msg), op.loc.known() || !op.loc.file.empty() ? std::optional<SourceLoc>(op.loc) : std::nullopt);
  for (auto& c : op.call_chain) e.notes.push_back({c, "called from here"});
  return e;
}

std::vector<isa::Engine> assign_engines(const Kernel& k, EngineCounts* counts) {
  std::vector<isa::Engine> out;
  out.reserve(k.ops.size());
  if (counts) *counts = EngineCounts{};
  for (auto& op : k.ops) {
    const isa::InstrInfo& in = isa::info(op.opcode);
    isa::Engine e = op.engine.value_or(in.default_engine);
    if (!(in.engines & isa::engine_bit(e)))
      throw error_at(op, std::string(in.mnemonic) + " cannot run on the " + std::string(isa::engine_name(e)) + " engine");
    out.push_back(e);
    if (!counts) continue;
    if (isa::has_trait(op.opcode, isa::Trait::DMA)) ++counts->dmas;
    else if (size_t(e) < counts->per_engine.size()) ++counts->per_engine[size_t(e)];
  }
  return out;
}

}  // namespace nkisim::ir
