// check_sync.cpp - synccheck: a deadlock names both sides (the waiting instruction and the semaphore's
// signallers: those that ran, and those that never will because their own engine is stuck).
#include <sstream>

#include "sim/check.h"
#include "sim/exec.h"

namespace nkisim::sim {

namespace {

std::string instr_text(const isa::Instruction& ins, size_t index) {
  std::ostringstream os;
  os << isa::info(ins.op).mnemonic << " (" << isa::engine_name(ins.engine) << " #" << index << ")";
  return os.str();
}

SourceLoc loc_of(const isa::Program& p, const isa::Instruction& ins) {
  return ins.loc && ins.loc < p.locations.size() ? p.locations[ins.loc] : SourceLoc{};
}

}  // namespace

void throw_deadlock(const ExecContext& ctx, const isa::Instruction& ins, const std::string& msg, uint16_t sem,
                    std::span<const size_t> reached) {
  const isa::Program& p = ctx.program;
  Error e(msg, ctx.location(ins));
  if (!e.loc) ctx.add_instruction_note(ins, e);  // no .loc: name the instruction first, as ExecContext::fail does
  constexpr size_t kMaxNotes = 4;
  size_t ran = 0, never = 0, shown = 0;
  // The last update of `sem` that ran (what the semaphore's value comes from) and those that never ran.
  const isa::Instruction* last_ran = nullptr;
  size_t last_ran_index = 0;
  for (int e2 = 0; e2 < isa::kNumEngines; ++e2) {
    const auto& st = p.streams[size_t(e2)];
    const size_t at = size_t(e2) < reached.size() ? reached[size_t(e2)] : st.size();
    for (size_t i = 0; i < st.size(); ++i) {
      uint32_t add = 0;
      for (const isa::SemUpdate& u : st[i].updates)
        if (u.sem == sem) add += u.add;
      if (!add) continue;
      if (i < at) {
        ++ran;
        last_ran = &st[i];
        last_ran_index = i;
        continue;
      }
      ++never;
      if (shown >= kMaxNotes) continue;
      ++shown;
      std::ostringstream os;
      os << "semaphore " << sem << " would be raised (+" << add << ") by " << instr_text(st[i], i)
         << ", which never ran";
      if (at < st.size()) os << ": " << isa::engine_name(isa::Engine(e2)) << " is stuck at " << instr_text(st[at], at);
      e.notes.emplace_back(loc_of(p, st[i]), os.str());
      if (at < st.size() && at != i) {
        const SourceLoc l = loc_of(p, st[at]);
        if (l.known()) e.notes.emplace_back(l, std::string(isa::engine_name(isa::Engine(e2))) + " is stuck here");
      }
    }
  }
  if (last_ran) {
    std::ostringstream os;
    os << "the last update of semaphore " << sem << " that ran: " << instr_text(*last_ran, last_ran_index) << " ("
       << ran << " update" << (ran == 1 ? "" : "s") << " ran in all)";
    e.notes.emplace_back(loc_of(p, *last_ran), os.str());
  }
  if (ran && !never) {
    e.notes.emplace_back(SourceLoc{}, "no update of semaphore " + std::to_string(sem) +
                                          " is left to run: the wait can never be satisfied");
  } else if (!ran && !never) {
    std::ostringstream os;
    os << "no instruction of this core's program updates semaphore " << sem;
    e.notes.emplace_back(SourceLoc{}, os.str());
  } else if (never > shown) {
    e.notes.emplace_back(SourceLoc{}, std::to_string(never - shown) + " more updates of semaphore " +
                                          std::to_string(sem) + " never ran");
  }
  throw e;
}

}  // namespace nkisim::sim
