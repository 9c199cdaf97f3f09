// explain.cpp - the --explain text: for each instruction (or those of one kernel source line) the cost the
// model gave it - formula, inputs (N, dtypes, mode, strides), cycles and ns - and, with a timeline, when it
// was ready, started, ended and what it waited for; DMA transfers add their split over the DMA engines.
#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "isa/printf.h"
#include "sim/cost.h"
#include "sim/explain.h"
#include "sim/simulate.h"

namespace nkisim::sim {

std::string operands_text(const isa::Instruction& ins) {
  const isa::InstrInfo& inf = isa::info(ins.op);
  std::string s;
  for (int k = 0; k < inf.num_operands; ++k) {
    if (!ins.operands[k].present()) continue;
    s += std::string(s.empty() ? "" : " ") + inf.operands[k].name + "=" + isa::to_string(ins.operands[k]);
  }
  return s;
}

namespace {

using isa::printf_string;

std::string ref_text(const isa::Program& p, const Result& r, TimingRef ref) {
  if (ref.kind == TimingRef::Instr && ref.id < r.timeline.size()) {
    const InstrTiming& t = r.timeline[ref.id];
    return std::string(isa::engine_name(isa::Engine(t.engine))) + " #" + std::to_string(t.index) + " " +
           isa::info(p.streams[t.engine][t.index].op).mnemonic;
  }
  if (ref.kind == TimingRef::Transfer && ref.id < r.transfers.size())
    return "DMA transfer of instruction " + ref_text(p, r, TimingRef{TimingRef::Instr, r.transfers[ref.id].instr});
  return "-";
}

void explain_one(const isa::Program& p, const Result& r, const isa::TargetDesc& t, isa::Engine e, uint32_t i,
                 const ExplainWaitFn& waited, std::string& s) {
  const isa::Instruction& ins = p.streams[size_t(e)][i];
  const isa::InstrInfo& inf = isa::info(ins.op);
  std::string loc = "?";
  if (ins.loc > 0 && ins.loc < p.locations.size())
    loc = p.locations[ins.loc].file + ":" + std::to_string(p.locations[ins.loc].line);
  s += printf_string("%s #%u %s  [%s]\n", std::string(isa::engine_name(e)).c_str(), i, inf.mnemonic, loc.c_str());
  s += "  operands: " + operands_text(ins) + "\n";
  CostNote note;
  cost_note() = &note;
  const double ns = engine_ns(ins, e, t);
  cost_note() = nullptr;
  const double ghz = t.engine_ghz(e);
  const double cycles = note.cycles >= 0 ? note.cycles : ns * ghz;
  s += "  formula:  " + (note.formula.empty() ? std::string(inf.cost_formula) : note.formula) + "\n";
  if (!note.formula.empty() && note.formula != inf.cost_formula) s += std::string("  table:    ") + inf.cost_formula + "\n";
  if (!note.inputs.empty()) {
    s += "  inputs:  ";
    for (auto& [k, v] : note.inputs) s += " " + k + "=" + v + ";";
    s += "\n";
  }
  s += printf_string("  cost:     %.6g cycles at %.4g GHz = %.3f ns\n", cycles, ghz, ns);
  const uint32_t id = r.instr_base[size_t(e)] + i;
  if (id >= r.timeline.size()) return;
  const InstrTiming& tm = r.timeline[id];
  s += printf_string("  schedule: ready %.3f ns, start %.3f ns, end %.3f ns, retired %.3f ns\n", tm.ready_ns, tm.start_ns,
           tm.end_ns, tm.retire_ns);
  if (tm.throttle < 1) s += printf_string("  throttling: level %.3f, duration %.3f ns\n", tm.throttle, tm.end_ns - tm.start_ns);
  std::string cross;
  if (tm.start_ns > tm.ready_ns && waited && waited(e, i, tm, cross)) {
    s += printf_string("  waited:   %.3f ns for ", tm.start_ns - tm.ready_ns) + cross + "\n";
  } else if (tm.start_ns > tm.ready_ns) {
    std::string why(stall_cause_name(tm.cause));
    if (tm.cause == StallCause::semaphore) why += " s" + std::to_string(tm.sem) + " >= " + std::to_string(tm.sem_value);
    s += printf_string("  waited:   %.3f ns for %s (%s)\n", tm.start_ns - tm.ready_ns, why.c_str(), ref_text(p, r, tm.pred).c_str());
  }
  if (tm.transfer >= 0 && size_t(tm.transfer) < r.transfers.size()) {
    const TransferTiming& x = r.transfers[size_t(tm.transfer)];
    s += printf_string("  transfer: queue %u, %.0f bytes in %u buffers on %u DMA engines (HBM read %.0f, write %.0f), dge %u\n",
             x.queue, x.bytes, x.buffers, x.engines, x.hbm_read, x.hbm_write, x.dge);
    s += printf_string("            enqueued %.3f ns, eligible %.3f ns (+ dma_fixed_ns %.0f), data %.3f .. %.3f ns\n",
             x.enqueue_ns, x.eligible_ns, t.dma_fixed_ns, x.start_ns, x.done_ns);
    if (x.engines > 1 && t.dma_engine_stagger_ns > 0)
      s += printf_string("            its %u engines start dma_engine_stagger_ns %.3g ns apart, the last at eligibility\n",
               x.engines, t.dma_engine_stagger_ns);
    std::vector<DmaShare> plan;
    dma_transfer_plan(ins, t, plan);
    if (!plan.empty()) {
      const DmaShare& sh = plan.front();
      s += printf_string("            per engine (e.g. engine %u): max(%u buffers x %.3g ns + %.0f B / %.4g B/ns, %u buffers x "
                         "dma_buffer_min_ns %.3g ns, %.4g page openings x dma_page_ns %.3g ns) = %.3f ns alone\n",
               sh.engine, sh.buffers, t.dma_buffer_overhead_ns, sh.bytes, t.dma_engine_bytes_per_ns, sh.buffers,
               t.dma_buffer_min_ns, sh.pages, t.dma_page_ns, sh.ns);
    }
  }
}

}  // namespace

std::string format_explain_with(const isa::Program& p, const Result& r, const isa::TargetDesc& t, int line,
                                const std::string& file, const ExplainWaitFn& waited) {
  std::vector<std::pair<isa::Engine, uint32_t>> list;
  for (int e = 0; e < isa::kNumEngines; ++e)
    for (uint32_t i = 0; i < p.streams[size_t(e)].size(); ++i) {
      const isa::Instruction& ins = p.streams[size_t(e)][i];
      if (line > 0) {
        if (ins.loc == 0 || ins.loc >= p.locations.size()) continue;
        const SourceLoc& l = p.locations[ins.loc];
        if (int(l.line) != line) continue;
        if (!file.empty() && l.file != file && !(l.file.size() > file.size() &&
                                                 l.file.compare(l.file.size() - file.size(), file.size(), file) == 0 &&
                                                 l.file[l.file.size() - file.size() - 1] == '/'))
          continue;
      }
      list.emplace_back(isa::Engine(e), i);
    }
  // In start-time order when there is a timeline, else engine by engine.
  if (!r.timeline.empty())
    std::stable_sort(list.begin(), list.end(), [&](auto& a, auto& b) {
      return r.timeline[r.instr_base[size_t(a.first)] + a.second].start_ns <
             r.timeline[r.instr_base[size_t(b.first)] + b.second].start_ns;
    });
  std::string s = printf_string("Cost breakdown: %s on %s, %zu instruction%s", p.kernel_name.c_str(), t.name.c_str(), list.size(),
                      list.size() == 1 ? "" : "s");
  if (line > 0) s += " from " + (file.empty() ? std::string("line ") : file + ":") + std::to_string(line);
  s += "\n";
  for (auto& [e, i] : list) {
    s += "\n";
    explain_one(p, r, t, e, i, waited, s);
  }
  return s;
}

}  // namespace nkisim::sim
