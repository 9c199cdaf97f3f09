// lnc.cpp - LNC=2 support in the back end (docs/lnc.md): core_barrier instructions get their semaphore (one
// per engine, after the program's others) and their sequence number on that engine, which both cores
// compute identically since they run the same control flow.
#include "ir/passes.h"

namespace nkisim::ir {

void assign_core_barriers(const Kernel& k, isa::Program& p) {
  int depth = 0;
  bool any = false;
  for (const Op& op : k.ops) {
    depth += op.ctl == Ctl::loop_begin ? 1 : op.ctl == Ctl::loop_end ? -1 : 0;
    if (!isa::has_trait(op.opcode, isa::Trait::CROSS_CORE)) continue;
    any = true;
    if (depth > 0)
      throw error_at(op, std::string(isa::info(op.opcode).mnemonic) + " inside a dynamic loop is not supported");
  }
  if (!any) return;
  const uint32_t base = p.num_semaphores;
  for (int e = 0; e < isa::kNumEngines; ++e) {
    int32_t n = 0;
    for (isa::Instruction& ins : p.streams[size_t(e)])
      if (isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) {  // one numbering
        ins.params.sem = uint16_t(base + uint32_t(e));
        ins.params.rimm = ++n;
      }
  }
  p.num_semaphores = base + isa::kNumEngines;
}

}  // namespace nkisim::ir
