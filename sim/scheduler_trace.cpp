// scheduler_trace.cpp - trace events built from the timing records (only with Options::trace): one slice
// per instruction on its engine's track (Tensor Engine LoadStationary on "tensor.ls", since it overlaps
// the multiply), DMA slices per engine and per queue (added while running), flow arrows for the semaphore
// dependencies, and the SBUF/PSUM usage counters.
#include <algorithm>

#include "sim/explain.h"
#include "sim/scheduler_impl.h"

namespace nkisim::sim::detail {
using isa::Engine;
using isa::Instruction;


void Scheduler::trace_slice(const std::string& track, const Instruction& ins, double start, double dur, uint32_t gid) {
  TraceEvent te;
  te.instr = int64_t(gid);
  te.track = track;
  te.cat = track.rfind("dma", 0) == 0 ? "dma" : track.substr(0, track.find('.'));
  te.name = isa::info(ins.op).mnemonic;
  te.start_ns = start;
  te.dur_ns = dur;
  te.operands = operands_text(ins);
  if (auto loc = ctx_.location(ins)) te.source_location = loc->file + ":" + std::to_string(loc->line);
  r_.trace.push_back(std::move(te));
}

void Scheduler::build_trace() {
  auto track_of = [&](uint32_t id) {
    const InstrTiming& rec = r_.timeline[id];
    const Instruction& ins = ins_at(rec.engine, rec.index);
    std::string t(isa::engine_name(Engine(rec.engine)));
    if (rec.engine == uint8_t(Engine::Tensor) && pe_role(ins.op) == PeRole::load_stationary) t += ".ls";
    return t;
  };
  for (uint32_t id = 0; id < r_.timeline.size(); ++id) {
    const InstrTiming& rec = r_.timeline[id];
    if (!rec.issued) continue;
    trace_slice(track_of(id), ins_at(rec.engine, rec.index), rec.start_ns, rec.end_ns - rec.start_ns, id);
  }
  for (const auto& [consumer, who] : r_.sem_edges) {
    TraceFlow f;
    if (who.kind == TimingRef::Instr) {
      f.from_track = track_of(who.id);
      f.from_ns = r_.timeline[who.id].end_ns;
    } else if (who.kind == TimingRef::Transfer) {
      f.from_track = "dma.q" + std::to_string(r_.transfers[who.id].queue);
      f.from_ns = r_.transfers[who.id].done_ns;
    } else {
      continue;
    }
    f.to_track = track_of(consumer);
    f.to_ns = r_.timeline[consumer].start_ns;
    f.name = "semaphore";
    r_.flows.push_back(std::move(f));
  }
  usage_counters(p_, t_, r_);
  std::stable_sort(r_.trace.begin(), r_.trace.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.start_ns < b.start_ns; });
}

}  // namespace nkisim::sim::detail
