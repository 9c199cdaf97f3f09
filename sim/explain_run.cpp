// explain_run.cpp - --explain and --profile of a run: one section per core (headed "core C: " when there are
// several; the per-core formats are sim/explain.cpp, sim/profile.cpp), where a core_barrier / sendrecv that
// waited says what it waited for. Such
// an instruction signals the other core once its stream has drained and its own waits hold ("became ready"),
// then waits until the peer's matching instruction's signal has arrived (core_barrier_ns after the peer became
// ready); the later of the two decides its start (a sendrecv's start is when the pair is ready, docs/lnc.md).
// The times come from RunResult::signals.
#include <algorithm>
#include <cstdio>

#include "sim/explain.h"

namespace nkisim::sim {
namespace {

std::string ns_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ns", v);
  return buf;
}

std::string us_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f us", v / 1000.0);
  return buf;
}

const RunResult::Signal* find_signal(const RunResult& r, size_t from, uint16_t sem, uint32_t n) {
  for (const RunResult::Signal& g : r.signals)
    if (g.from == from && g.sem == sem && g.n == n) return &g;
  return nullptr;
}

bool cross_core(isa::Opcode op) { return isa::has_trait(op, isa::Trait::CROSS_CORE); }

// "core 1's matching core_barrier (gpsimd #0, lnc.py:44)" for instruction `ins` of another core.
std::string peer_text(std::span<const isa::Program> programs, size_t peer, isa::Engine e, const isa::Instruction& ins) {
  const isa::Program& q = programs[peer];
  const auto& stream = q.streams[size_t(e)];
  for (uint32_t k = 0; k < stream.size(); ++k) {
    const isa::Instruction& x = stream[k];
    if (!cross_core(x.op) || x.params.sem != ins.params.sem || x.params.rimm != ins.params.rimm) continue;
    std::string where = std::string(isa::engine_name(e)) + " #" + std::to_string(k);
    if (x.op == isa::Opcode::sendrecv) where += ", pipe_id " + std::to_string(x.params.pipe_id);
    if (x.loc > 0 && x.loc < q.locations.size())
      where += ", " + q.locations[x.loc].file + ":" + std::to_string(q.locations[x.loc].line);
    return "core " + std::to_string(peer) + "'s matching " + isa::info(x.op).mnemonic + " (" + where + ")";
  }
  return "core " + std::to_string(peer) + "'s matching " + isa::info(ins.op).mnemonic;
}

}  // namespace

std::optional<CrossWait> cross_wait(std::span<const isa::Program> programs, const RunResult& r, size_t core,
                                    isa::Engine e, uint32_t i) {
  if (core >= programs.size() || programs.size() != 2 || i >= programs[core].streams[size_t(e)].size())
    return std::nullopt;
  const isa::Instruction& ins = programs[core].streams[size_t(e)][i];
  if (!cross_core(ins.op)) return std::nullopt;
  const size_t peer = 1 - core;
  const RunResult::Signal* own = find_signal(r, core, ins.params.sem, ins.params.rimm);
  const RunResult::Signal* other = find_signal(r, peer, ins.params.sem, ins.params.rimm);
  if (!own || !other) return std::nullopt;
  CrossWait w;
  w.peer = peer_text(programs, peer, e, ins);
  w.peer_core = uint32_t(peer);
  w.own_sent_ns = own->sent_ns;
  w.peer_sent_ns = other->sent_ns;
  w.peer_arrive_ns = other->arrive_ns;
  return w;
}

std::string format_explain(std::span<const isa::Program> programs, const RunResult& r, const isa::TargetDesc& t,
                           int line, const std::string& file) {
  std::string s;
  char lat[64];
  std::snprintf(lat, sizeof lat, "%.6g", t.core_barrier_ns);
  const size_t n = std::min(programs.size(), r.cores.size());
  for (size_t c = 0; c < n; ++c) {
    ExplainWaitFn waited = [&](isa::Engine e, uint32_t i, const InstrTiming&, std::string& text) {
      const std::optional<CrossWait> w = cross_wait(programs, r, c, e, i);
      if (!w) return false;
      if (w->peer_last())
        text = w->peer + ": it became ready and signalled at " + ns_text(w->peer_sent_ns) + ", arriving at " +
               ns_text(w->peer_arrive_ns) + " (+ core_barrier_ns " + lat + "); this core signalled at " +
               ns_text(w->own_sent_ns);
      else
        text = "this core's earlier instructions and semaphore waits (signalled core " + std::to_string(w->peer_core) +
               " at " + ns_text(w->own_sent_ns) + "); " + w->peer + " became ready and signalled at " +
               ns_text(w->peer_sent_ns) + ", arriving at " + ns_text(w->peer_arrive_ns);
      return true;
    };
    s += "\n" + (n > 1 ? "core " + std::to_string(c) + ": " : std::string()) +
         format_explain_with(programs[c], r.cores[c], t, line, file, waited);
  }
  return s;
}

std::string format_profile(std::span<const isa::Program> programs, const RunResult& r, const isa::TargetDesc* t) {
  std::string s;
  const size_t n = std::min(programs.size(), r.cores.size());
  for (size_t c = 0; c < n; ++c) {
    ProfileWaitFn waited = [&](isa::Engine e, uint32_t i, std::string& text) {
      const std::optional<CrossWait> w = cross_wait(programs, r, c, e, i);
      if (!w) return false;
      if (w->peer_last())
        text = w->peer + ", signalled at " + us_text(w->peer_sent_ns) + ", arriving at " + us_text(w->peer_arrive_ns);
      else
        text = "this core's earlier instructions and semaphore waits (signalled core " + std::to_string(w->peer_core) +
               " at " + us_text(w->own_sent_ns) + ")";
      return true;
    };
    if (n > 1) s += std::string(c ? "\n" : "") + "core " + std::to_string(c) + ": ";
    s += format_profile_with(programs[c], r.cores[c], waited, t);
  }
  return s;
}

}  // namespace nkisim::sim
