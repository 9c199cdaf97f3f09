// semaphores.cpp - emission of straight-line code: one region of the dependency analysis (ir/deps.h), the fast
// path of emit_with_semaphores. Each instruction is made once, into a scratch instruction, analysed and moved into
// its stream; its waits and updates are added once the whole region has been analysed. Kernels with registers or
// dynamic loops go to emit_with_loops (ir/loops.cpp), which analyses its regions with the same RegionAnalysis.
#include <array>
#include <cstdint>
#include <deque>

#include "ir/deps.h"
#include "ir/passes.h"
#include "ir/prefault.h"

namespace nkisim::ir {

void emit_with_semaphores(const Kernel& k, const std::vector<isa::Engine>& engines, const MakeInstruction& make,
                          const isa::TargetDesc& t, isa::Program& p, deps::Granules granules, SemaphorePath path) {
  const size_t n = k.ops.size();
  if (path == SemaphorePath::regions || has_dynamic_control(k)) {
    std::vector<isa::Instruction> instrs(n);
    for (size_t i = 0; i < n; ++i) make(i, instrs[i]);
    return emit_with_loops(k, engines, std::move(instrs), t, p, granules);
  }
  deps::DmaQueues queues(t);
  deps::RegionAnalysis region(t, queues, false, granules);
  region.set_trigger_engines(deps::engines_without_compute(k, engines));
  region.begin_pass();
  std::vector<uint32_t> position(n);  // op i is p.streams[region.trigger(i)][position[i]]
  isa::Instruction scratch;
  std::deque<isa::AccessPattern> extra;
  std::vector<deps::Access> acc;
  for (size_t i = 0; i < n; ++i) {
    scratch = isa::Instruction{};
    make(i, scratch);
    isa::Instruction& ins = scratch;
    const Op& op = k.ops[i];
    deps::UnitDesc u;
    u.trigger = uint8_t(engines[i]);
    if (deps::is_dma(ins.op)) {
      u.dma = true;
      const std::optional<isa::Engine> fixed = deps::fixed_dma_trigger(op, false);
      if (fixed) u.trigger = uint8_t(*fixed);
      u.choose_trigger = !fixed;
      u.trigger_engines = deps::dma_trigger_engines(ins, t);
    }
    extra.clear();
    acc.clear();
    deps::list_accesses(ins, extra, acc);
    const auto [trig, stream] = region.add(u, acc);
    // Into its stream now (waits and updates are added below, once every op's dependencies are known).
    ins.engine = isa::Engine(trig);
    if (stream >= deps::kEngineStreams) ins.params.dma_queue = uint16_t(stream - deps::kEngineStreams);
    position[i] = uint32_t(p.streams[trig].size());
    prefault_append(p.streams[trig]);
    p.streams[trig].push_back(std::move(ins));
  }
  region.finish();
  // Each stream in order (its instructions one after another in memory, not interleaved by program order).
  std::array<std::vector<uint32_t>, isa::kNumEngines> unit_at;  // per stream position: the op (or none)
  for (size_t e = 0; e < unit_at.size(); ++e) unit_at[e].assign(p.streams[e].size(), UINT32_MAX);
  for (size_t i = 0; i < n; ++i) unit_at[region.trigger(i)][position[i]] = uint32_t(i);
  for (size_t e = 0; e < unit_at.size(); ++e)
    for (size_t at = 0; at < unit_at[e].size(); ++at) {
      const size_t i = unit_at[e][at];
      if (i == UINT32_MAX) continue;
      isa::Instruction& ins = p.streams[e][at];
      if (!region.waits(i).empty()) ins.waits.reserve(region.waits(i).size());
      for (const deps::Wait& w : region.waits(i))
        ins.waits.push_back(isa::SemWait{uint16_t(w.stream), uint32_t(w.value)});
      if (region.signals(i)) ins.updates.push_back(isa::SemUpdate{uint16_t(region.stream(i)), 1});
    }
  p.num_semaphores = uint32_t(queues.num_streams());
}

deps::Granules memory_granules(const Kernel& k, const std::vector<Placement>& pl, const isa::TargetDesc& t) {
  deps::MemoryGranules g;
  for (const Op& op : k.ops)
    for (size_t s = 0; s < op.operands.size(); ++s)
      if (const std::optional<View>& v = op.operands[s]; v && v->tensor >= 0)
        g.add(to_access_pattern(k, pl.at(size_t(v->tensor)), *v, op, int(s), t));
  return g.value();
}

}  // namespace nkisim::ir
