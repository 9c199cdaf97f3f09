// explain.h - the --explain / --profile formatters with a hook for an instruction's wait (sim/explain.cpp,
// sim/profile.cpp): a run of several cores (sim/explain_run.cpp) says what a core_barrier / sendrecv waited for
// on the other core instead of a semaphore wait.
#pragma once
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "sim/simulate.h"

namespace nkisim::sim {

// The operands as isa::print_instruction prints them: "dst=<ap> src=<ap>" (trace, explain, html).
std::string operands_text(const isa::Instruction& ins);

// Returns true and sets `text` (what follows "waited: X ns for ") to explain the wait of instruction (e, i).
using ExplainWaitFn = std::function<bool(isa::Engine e, uint32_t i, const InstrTiming& tm, std::string& text)>;
std::string format_explain_with(const isa::Program& p, const Result& r, const isa::TargetDesc& t, int line,
                                const std::string& file, const ExplainWaitFn& waited);

// Returns true and sets `text` (what follows "waited for " in the stall list) for instruction (e, i).
using ProfileWaitFn = std::function<bool(isa::Engine e, uint32_t i, std::string& text)>;
// `t`: the run's target parameters for the verdict's peaks (nullptr: the built-in description of r.target).
std::string format_profile_with(const isa::Program& p, const Result& r, const ProfileWaitFn& waited,
                                const isa::TargetDesc* t = nullptr);

// What a core_barrier / sendrecv (engine e, index i of core `core`'s program) waited for in a two-core run.
struct CrossWait {
  std::string peer;          // "core 1's matching core_barrier (gpsimd #0, lnc.py:44)"
  uint32_t peer_core = 0;
  double own_sent_ns = 0;    // this core became ready and signalled the peer
  double peer_sent_ns = 0;   // the peer's matching instruction became ready and signalled
  double peer_arrive_ns = 0; // its signal arrived here (peer_sent_ns + core_barrier_ns)
  bool peer_last() const { return peer_arrive_ns >= own_sent_ns; }  // the peer's signal decided the start
};
std::optional<CrossWait> cross_wait(std::span<const isa::Program> programs, const RunResult& r, size_t core,
                                    isa::Engine e, uint32_t i);

}  // namespace nkisim::sim
