// lower.cpp - the back end driver: engines -> allocation -> access patterns -> semaphores -> Program.
#include "ir/lower.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

// Interns source locations into Program::locations (index 0 = unknown), fast for repeated lookups.
class LocationTable {
 public:
  explicit LocationTable(isa::Program& p) : p_(p) {}
  uint32_t intern(const SourceLoc& l) {
    if (!l.known()) return 0;
    const uint64_t key = (uint64_t(l.line) << 32) | l.col;
    auto& bucket = index_[key];
    for (uint32_t i : bucket)
      if (p_.locations[i].file == l.file) return i;
    p_.locations.push_back(l);
    bucket.push_back(uint32_t(p_.locations.size() - 1));
    return bucket.back();
  }

 private:
  isa::Program& p_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> index_;
};

// Allocates, spilling automatically allocated tensors that do not fit (the largest spillable tensor live at the
// failure, in that memory) until everything fits; the kernel is copied into `spilled` on the first spill.
// A failure with nothing left to spill throws the first capacity error; so does any failure of a kernel that
// places some of its tensors itself (address=, mod_alloc, alloc): it manages its memory, and gets the error.
std::vector<Placement> allocate_spilling(const Kernel& k, const isa::TargetDesc& target, isa::Program& p,
                                         std::optional<Kernel>& spilled, std::vector<std::string>* notes) {
  if (std::any_of(k.tensors.begin(), k.tensors.end(), [](const Tensor& t) { return t.address.has_value(); }))
    return allocate(k, target, p);
  std::optional<CapacityFailure> fail;
  std::optional<Error> first;
  for (;;) {
    const Kernel& cur = spilled ? *spilled : k;
    fail.reset();
    p.hbm_tensors.clear();
    std::vector<Placement> pl = allocate(cur, target, p, &fail);
    if (!fail) return pl;
    if (!first) first = fail->error;
    int best = -1;
    int64_t best_bytes = -1;
    for (auto [ti, bytes] : fail->live)
      if (bytes > best_bytes && size_t(ti) < k.tensors.size() && spillable(cur, ti)) best = ti, best_bytes = bytes;
    if (best < 0) throw *first;
    if (!spilled) spilled = k;
    SpillNote n = spill_tensor(*spilled, best);
    if (notes) {
      const Tensor& t = spilled->tensors[size_t(best)];
      std::string where = t.loc.known() ? t.loc.file + ":" + std::to_string(t.loc.line) + ":" + std::to_string(t.loc.col) + ": " : "";
      notes->push_back(where + "note: tensor '" + n.name + "' (" + std::to_string(n.bytes) + " bytes per partition) does not fit in " +
                       (n.from == Buffer::psum ? "PSUM" : "SBUF") + "; spilled to HBM with " + std::to_string(n.reloads) +
                       " reload and " + std::to_string(n.spills) + " spill DMAs");
    }
  }
}

}  // namespace

isa::Program lower(const Kernel& kernel, const isa::TargetDesc& target, std::vector<std::string>* notes) {
  isa::Program p;
  p.target = target.name;
  p.kernel_name = kernel.name;
  p.strings = kernel.strings;
  std::vector<isa::Engine> engines = assign_engines(kernel);
  std::optional<Kernel> spilled;
  std::vector<Placement> pl = allocate_spilling(kernel, target, p, spilled, notes);
  const Kernel& k = spilled ? *spilled : kernel;
  if (spilled) engines = assign_engines(k);  // the rewritten ops
  LocationTable locs(p);
  auto make = [&](size_t i, isa::Instruction& ins) {
    const Op& op = k.ops[i];
    const isa::InstrInfo& in = isa::info(op.opcode);
    ins.op = op.opcode;
    ins.params = op.params;
    ins.loc = locs.intern(op.loc);
    for (int s = 0; s < in.num_operands; ++s) {
      if (op.operands[size_t(s)]) ins.operands[size_t(s)] = to_access_pattern(k, pl, *op.operands[size_t(s)], op, s, target);
      else if (in.operands[size_t(s)].required)
        throw error_at(op, std::string(in.mnemonic) + ": missing operand '" + in.operands[size_t(s)].name + "'");
    }
    if (!op.dynamic.empty()) lower_dynamic_operands(k, pl, op, ins);
  };
  // Stream capacity up front, so emit_with_semaphores does not move the (large) instructions again each
  // time a stream grows: each engine's own ops plus room for DMAs it may trigger (a DMA runs from the engine
  // that produced its input, else Sync). Unused capacity costs only address space.
  std::array<size_t, isa::kNumEngines> per_engine{};
  size_t dmas = 0;
  for (size_t i = 0; i < k.ops.size(); ++i) {
    if (isa::info(k.ops[i].opcode).cost == isa::CostClass::dma) ++dmas;
    else if (size_t(engines[i]) < per_engine.size()) ++per_engine[size_t(engines[i])];
  }
  for (size_t e = 0; e < per_engine.size(); ++e)
    p.streams[e].reserve(p.streams[e].size() + per_engine[e] + std::min(dmas, k.ops.size() / 4));
  emit_with_semaphores(k, engines, make, target, p);
  assign_core_barriers(k, p);
  return p;
}

}  // namespace nkisim::ir
