// check_race.cpp - racecheck and synccheck (docs/checks.md).
//
// Happens-before is what the program does in the run, as vector clocks. Actors: each core's engines (in-order
// streams) and DMA queues (in-order transfers). An engine instruction's accesses happen at its engine's current
// epoch; a DMA's on its queue, with the clock the queue had when the DMA was triggered joined with its trigger
// engine's (on_trigger: the transfer starts after the trigger's earlier instructions; not so on the Tensor Engine,
// whose pipeline lets a transfer overtake the matmuls before it). A semaphore update (on_release) records the
// updater's clock in the semaphore's history: the value after the update and the join of every update so far; a
// wait for >= v joins the entry of the first value >= v (the updates that made it hold). A core_barrier or
// sendrecv (on_signal) is an update of the other cores' semaphore, joined when the peer passes its own.
//
// Accesses: memory is cut into cells (on chip: 32-partition quadrant x 64 bytes, the back end's own dependency
// cells, ir/cells.h; HBM: 64 bytes) holding the records of the latest accesses later ones may race with. An
// access checks each record of its cells: one of the two writes, another actor, not ordered before it by the
// clocks, and the two touch a common byte (checked exactly, over the whole operands) -> a race, reported once
// per pair of instructions. A record leaves its cell when an access ordered after it covers its bytes there (a
// write covers anything, a read covers reads): a later access racing with it races with the newer one too.
//
// synccheck: a semaphore update past the 32-bit counter's range; a semaphore left above every wait on it at the
// end of the run (its last updates order nothing: a wait= is probably missing).
#include <algorithm>
#include <sstream>

#include "sim/check_impl.h"
#include "sim/exec.h"
#include "sim/exec_control.h"

namespace nkisim::sim {

namespace {

using Clock = RaceState::Clock;
using Rec = RaceState::Rec;
// Semaphores are 32-bit counters: the hardware's semaphore updates are 4-byte writes (machine.md §2, DMA
// completion); nothing in the SDK documents another width.
constexpr uint64_t kSemMax = 0xffffffffull;
constexpr uint32_t kQuadrant = 32;
constexpr unsigned kCellShift = 6;

void join(Clock& a, const Clock& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::max(a[i], b[i]);
}
bool is_dma(const isa::Instruction& ins) { return isa::has_trait(ins.op, isa::Trait::DMA); }
bool is_barrier(const isa::Instruction& ins) {
  return isa::has_trait(ins.op, isa::Trait::CROSS_CORE);
}

// Byte extent of one partition's elements relative to its first element: [lo, hi).
std::pair<int64_t, int64_t> extent(const View& v) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < v.nd; ++d) {
    const int64_t span = v.step[size_t(d)] * int64_t(v.count[size_t(d)] ? v.count[size_t(d)] - 1 : 0);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + int64_t(v.esize)};
}

// The byte ranges of a bound view, relative to `base`, sorted and merged.
std::vector<std::pair<int64_t, int64_t>> byte_ranges(const View& v, const uint8_t* base) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (uint32_t i = 0; i < v.partitions; ++i)
    for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
      const int64_t off = p - base, es = int64_t(v.esize);
      if (st == es) out.emplace_back(off, off + int64_t(n) * es);
      else if (st == -es) out.emplace_back(off - int64_t(n - 1) * es, off + es);
      else
        for (size_t k = 0; k < n; ++k) out.emplace_back(off + int64_t(k) * st, off + int64_t(k) * st + es);
    });
  std::sort(out.begin(), out.end());
  size_t w = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (w && out[i].first <= out[w - 1].second) out[w - 1].second = std::max(out[w - 1].second, out[i].second);
    else out[w++] = out[i];
  }
  out.resize(w);
  return out;
}

bool hits(const std::vector<std::pair<int64_t, int64_t>>& r, int64_t lo, int64_t hi) {
  auto it = std::upper_bound(r.begin(), r.end(), std::make_pair(lo, INT64_MAX));
  if (it != r.begin() && std::prev(it)->second > lo) return true;
  return it != r.end() && it->first < hi;
}

}  // namespace

// ---- actors and clocks ----------------------------------------------------------------------------------

void Checker::Impl::race_attach(ExecContext& ctx, uint32_t core) {
  if (!race) {
    race = std::make_unique<RaceState>();
    RaceState& r = *race;
    r.per_core = uint32_t(isa::kNumEngines) + uint32_t(std::max(1.0, ctx.target.dma_queues));
    const size_t n = size_t(r.per_core) * cores.size();
    r.vc.assign(n, Clock(n, 0));
    for (size_t a = 0; a < n; ++a) r.vc[a][a] = 1;
    r.in_flight.resize(n);
    r.sems.resize(cores.size());
    r.chip.resize(cores.size());
    const MemorySpace& h = ctx.mem.hbm;
    const uint64_t bytes = h.pitch() * h.partitions();
    r.hbm.init((bytes >> kCellShift) + 1, 0);
  }
  RaceState& r = *race;
  auto& sems = r.sems[core];
  sems.resize(ctx.program.num_semaphores);
  for (const auto& stream : ctx.program.streams)  // what the program's waits could ever need
    for (const isa::Instruction& ins : stream) {
      for (const isa::SemWait& w : ins.waits)
        if (w.sem < sems.size()) sems[w.sem].max_wait = std::max<uint64_t>(sems[w.sem].max_wait, w.value);
      if (ins.params.sem >= sems.size()) continue;
      if (ins.op == isa::Opcode::sem_wait_reg) sems[ins.params.sem].reg_wait = true;
      if (is_barrier(ins))
        sems[ins.params.sem].max_wait = std::max<uint64_t>(sems[ins.params.sem].max_wait,
                                                           uint64_t(std::max<int32_t>(0, ins.params.rimm)));
    }
  auto chip = [](RaceState::Cells& c, const MemorySpace& m) {
    const uint64_t chunks = (m.pitch() >> kCellShift) + 1;
    c.init(chunks * ((m.partitions() + kQuadrant - 1) / kQuadrant), chunks);
  };
  chip(r.chip[core].sbuf, ctx.mem.sbuf);
  chip(r.chip[core].psum, ctx.mem.psum);
  r.chip[core].sbuf_pitch = ctx.mem.sbuf.pitch();
  r.chip[core].psum_pitch = ctx.mem.psum.pitch();
}

uint32_t Checker::Impl::actor_of(uint32_t core, const isa::Instruction& ins, bool queue) const {
  const uint32_t local = queue ? uint32_t(isa::kNumEngines) +
                                     std::min<uint32_t>(ins.params.dma_queue, race->per_core - isa::kNumEngines - 1)
                               : uint32_t(ins.engine);
  return core * race->per_core + local;
}

void Checker::Impl::wait_for(uint32_t core, uint32_t sem, uint64_t value, Clock& vc) {
  RaceState& r = *race;
  if (sem >= r.sems[core].size()) return;
  const RaceState::Sem& s = r.sems[core][sem];
  if (!value || s.hist.empty()) return;
  auto it = std::lower_bound(s.hist.begin(), s.hist.end(), value,
                             [](const auto& h, uint64_t v) { return h.first < v; });
  if (it == s.hist.end()) --it;
  join(vc, it->second);
}

void Checker::Impl::acquire(ExecContext& ctx, uint32_t core, const isa::Instruction& ins, Clock& vc, bool passing) {
  for (const isa::SemWait& w : ins.waits) wait_for(core, w.sem, w.value, vc);
  if (ins.op == isa::Opcode::sem_wait_reg)
    wait_for(core, ins.params.sem, uint64_t(std::max<int64_t>(0, sem_wait_reg_threshold(ctx, ins))), vc);
  if (passing && is_barrier(ins)) wait_for(core, ins.params.sem, uint64_t(std::max<int32_t>(0, ins.params.rimm)), vc);
}

void Checker::Impl::release(uint32_t core, uint32_t sem, uint32_t add, const Clock& clock, const isa::Instruction& ins,
                            uint32_t by_core) {
  RaceState& r = *race;
  if (sem >= r.sems[core].size()) return;
  RaceState::Sem& s = r.sems[core][sem];
  s.value += add;
  s.last = &ins;
  s.last_core = by_core;
  if (s.value > kSemMax && !s.overflowed && sync_on) {
    s.overflowed = true;
    Finding f;
    f.kind = "synccheck";
    f.core = int(by_core);
    locate(f, *cores[by_core].program, ins);
    std::ostringstream os;
    os << who(f, int(by_core)) << " raises " << (cores.size() > 1 ? "core " + std::to_string(core) + "'s " : "")
       << "semaphore " << sem << " to " << s.value << ", past the largest value of a 32-bit semaphore ("
       << kSemMax << ")";
    f.message = os.str();
    add_finding(std::move(f));
  }
  Clock cum = clock;
  if (!s.hist.empty()) join(cum, s.hist.back().second);
  s.hist.emplace_back(s.value, std::move(cum));
  if (s.hist.size() > RaceState::kMaxHistory) s.hist.pop_front();
}

void Checker::Impl::trigger(ExecContext& ctx, const isa::Instruction& ins) {
  RaceState& r = *race;
  const uint32_t core = ctx.check_core, e = actor_of(core, ins, false), q = actor_of(core, ins, true);
  acquire(ctx, core, ins, r.vc[e], true);
  Clock& qc = r.vc[q];
  if (ins.engine == isa::Engine::Tensor) {
    // The PE pipeline: a transfer is not ordered after the Tensor Engine's earlier instructions, only after
    // those its own waits name.
    Clock waits(qc.size(), 0);
    acquire(ctx, core, ins, waits, true);
    const uint32_t known = std::max(qc[e], waits[e]);
    join(qc, r.vc[e]);
    qc[e] = known;
  } else {
    join(qc, r.vc[e]);
  }
  r.in_flight[q].push_back(RaceState::InFlight{&ins, qc});
  ++qc[q];
  ++r.vc[e][e];
}

void Checker::on_trigger(ExecContext& ctx, const isa::Instruction& ins) {
  if (impl_->race) impl_->trigger(ctx, ins);
}

void Checker::on_release(ExecContext& ctx, const isa::Instruction& ins) {
  Impl& m = *impl_;
  if (!m.race) return;
  RaceState& r = *m.race;
  const uint32_t core = ctx.check_core;
  if (is_dma(ins)) {  // completed on its queue, with the clock of its trigger
    const uint32_t q = m.actor_of(core, ins, true);
    auto& fl = r.in_flight[q];
    auto it = std::find_if(fl.begin(), fl.end(), [&](const RaceState::InFlight& x) { return x.ins == &ins; });
    Clock clock = it != fl.end() ? std::move(it->clock) : r.vc[q];
    if (it != fl.end()) fl.erase(it);
    for (const isa::SemUpdate& u : ins.updates) m.release(core, u.sem, u.add, clock, ins, core);
    return;
  }
  const uint32_t e = m.actor_of(core, ins, false);
  m.acquire(ctx, core, ins, r.vc[e], true);
  if (ins.updates.empty()) return;
  for (const isa::SemUpdate& u : ins.updates) m.release(core, u.sem, u.add, r.vc[e], ins, core);
  ++r.vc[e][e];
}

void Checker::on_signal(ExecContext& ctx, const isa::Instruction& ins) {
  Impl& m = *impl_;
  if (!m.race) return;
  RaceState& r = *m.race;
  const uint32_t core = ctx.check_core, e = m.actor_of(core, ins, false);
  m.acquire(ctx, core, ins, r.vc[e], false);
  for (uint32_t d = 0; d < m.cores.size(); ++d)
    if (d != core) m.release(d, ins.params.sem, 1, r.vc[e], ins, core);
  ++r.vc[e][e];
}

// ---- accesses -------------------------------------------------------------------------------------------

void Checker::Impl::race_retire(ExecContext& ctx, const isa::Instruction& ins) {
  RaceState& r = *race;
  const uint32_t core = ctx.check_core;
  uint32_t actor;
  const Clock* clock;
  if (is_dma(ins)) {
    actor = actor_of(core, ins, true);
    auto& fl = r.in_flight[actor];
    auto it = std::find_if(fl.begin(), fl.end(), [&](const RaceState::InFlight& x) { return x.ins == &ins; });
    if (it == fl.end()) {  // a functional run triggers a DMA where it completes
      trigger(ctx, ins);
      it = std::prev(fl.end());
    }
    clock = &it->clock;
  } else {
    actor = actor_of(core, ins, false);
    // A core_barrier / sendrecv has passed the peer's signal when it writes (sendrecv's dst), not when it reads.
    const bool passing = !is_barrier(ins) ||
                         std::any_of(pending.begin(), pending.end(), [](const Access& a) { return a.writes; });
    acquire(ctx, core, ins, r.vc[actor], passing);
    clock = &r.vc[actor];
  }
  if (!race_on) return;
  for (const Access& a : pending) race_access(ctx, core, actor, *clock, a);
}

uint32_t Checker::Impl::new_record() {
  RaceState& r = *race;
  if (!r.free_recs.empty()) {
    const uint32_t id = r.free_recs.back();
    r.free_recs.pop_back();
    return id;
  }
  r.recs.emplace_back();
  return uint32_t(r.recs.size() - 1);
}

void Checker::Impl::unref(uint32_t id) {
  if (--race->recs[id].refs == 0) race->free_recs.push_back(id);
}

void Checker::Impl::race_access(ExecContext& ctx, uint32_t core, uint32_t actor, const Clock& vc, const Access& a) {
  RaceState& r = *race;
  const View& v = a.v;
  MemorySpace& ms = ctx.mem.of(v.mem);
  const uint8_t* mbase = ms.ptr(0, 0);
  const uint32_t id = new_record();
  Rec& rec = r.recs[id];
  rec = Rec{};
  rec.actor = actor;
  rec.clock = vc[actor];
  rec.core = core;
  rec.slot = a.slot;
  rec.write = a.writes;
  rec.ins = a.ins;
  rec.v = v;
  rec.v.base = nullptr;
  rec.off = v.base - mbase;
  const auto [elo, ehi] = extent(v);
  checked_.clear();
  if (a.writes && v.mem == isa::Memory::HBM && cores.size() > 1) {  // FNV-1a of the bytes written
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < v.partitions; ++i)
      for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
        for (size_t k = 0; k < n; ++k)
          for (unsigned b = 0; b < v.esize; ++b) h = (h ^ p[int64_t(k) * st + b]) * 1099511628211ull;
      });
    rec.hash = h;
  }
  if (v.mem == isa::Memory::HBM) {
    const int64_t row = ehi - elo;
    rec.p0 = 0;
    rec.p1 = 1;
    rec.lo = rec.off + std::min<int64_t>(0, v.pstep * int64_t(v.partitions - 1)) + elo;
    rec.hi = rec.off + std::max<int64_t>(0, v.pstep * int64_t(v.partitions - 1)) + ehi;
    rec.exact = v.contiguous_rows() && (v.partitions == 1 || v.pstep == row);
    auto range = [&](int64_t s, int64_t e, bool exact) {
      for (int64_t c = s >> kCellShift; c <= (e - 1) >> kCellShift; ++c) {
        const int64_t c0 = c << kCellShift, c1 = c0 + (int64_t(1) << kCellShift);
        const Cover cov = exact ? Cover{0, 1, std::max(s, c0), std::min(e, c1)} : Cover{};
        visit(ctx, r.hbm.at(uint64_t(c)), id, vc, cov, Cover{0, 1, c0, c1});
      }
    };
    for (uint32_t i = 0; i < v.partitions; ++i) {
      if (v.contiguous_rows()) {
        const int64_t s = rec.off + int64_t(i) * v.pstep;
        range(s + elo, s + ehi, true);
        continue;
      }
      for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
        const int64_t off = p - mbase, es = int64_t(v.esize);
        if (st == es || st == -es) {
          const int64_t s = st > 0 ? off : off - int64_t(n - 1) * es;
          range(s, s + int64_t(n) * es, true);
        } else if (st > -(int64_t(1) << kCellShift) && st < (int64_t(1) << kCellShift)) {
          const int64_t last = off + int64_t(n - 1) * st;
          range(std::min(off, last), std::max(off, last) + es, false);
        } else {
          for (size_t k = 0; k < n; ++k) range(off + int64_t(k) * st, off + int64_t(k) * st + es, true);
        }
      });
    }
  } else {
    const int64_t pitch = int64_t(ms.pitch());
    if (v.partitions <= 1 || v.pstep == pitch) {
      rec.p0 = uint32_t(rec.off / pitch);
      rec.p1 = rec.p0 + v.partitions;
      rec.lo = rec.off % pitch + elo;
      rec.hi = rec.off % pitch + ehi;
      rec.exact = v.contiguous_rows();
    } else {
      int64_t p0 = INT64_MAX, p1 = 0, b0 = INT64_MAX, b1 = 0;
      for (uint32_t i = 0; i < v.partitions; ++i) {
        const int64_t o = rec.off + int64_t(i) * v.pstep;
        p0 = std::min(p0, o / pitch), p1 = std::max(p1, o / pitch + 1);
        b0 = std::min(b0, o % pitch), b1 = std::max(b1, o % pitch);
      }
      rec.p0 = uint32_t(p0), rec.p1 = uint32_t(p1), rec.lo = b0 + elo, rec.hi = b1 + ehi;
      rec.exact = false;
    }
    rec.lo = std::max<int64_t>(rec.lo, 0);
    rec.hi = std::min<int64_t>(rec.hi, pitch);
    RaceState::Cells& cells = v.mem == isa::Memory::PSUM ? r.chip[core].psum : r.chip[core].sbuf;
    for (uint32_t qd = rec.p0 / kQuadrant; qd * kQuadrant < rec.p1 && rec.lo < rec.hi; ++qd)
      for (int64_t c = rec.lo >> kCellShift; c <= (rec.hi - 1) >> kCellShift; ++c) {
        const int64_t c0 = c << kCellShift, c1 = c0 + (int64_t(1) << kCellShift);
        const int64_t q0 = int64_t(qd * kQuadrant), q1 = q0 + kQuadrant;
        const Cover cell{q0, q1, c0, c1};
        const Cover cov = rec.exact ? Cover{std::max<int64_t>(q0, rec.p0), std::min<int64_t>(q1, rec.p1),
                                            std::max(c0, rec.lo), std::min(c1, rec.hi)}
                                    : Cover{};
        const uint64_t idx = uint64_t(qd) * cells.chunks + uint64_t(c);
        if (idx < cells.count) visit(ctx, cells.at(idx), id, vc, cov, cell);
      }
  }
  if (r.recs[id].refs == 0) r.free_recs.push_back(id);
}

void Checker::Impl::visit(ExecContext& ctx, RaceState::Cell& c, uint32_t id, const Clock& vc, const Cover& cov,
                          const Cover& cell) {
  RaceState& r = *race;
  if (c.n && c.r[c.n - 1] == id) return;  // this access was here already
  const Rec& a = r.recs[id];
  uint32_t keep = 0;
  for (uint32_t k = 0; k < c.n; ++k) {
    const uint32_t rid = c.r[k];
    const Rec& o = r.recs[rid];
    const bool ordered = o.actor == a.actor || o.clock <= vc[o.actor];
    if (!ordered) {
      if (o.write || a.write) maybe_race(ctx, rid, id);
      c.r[keep++] = rid;
      continue;
    }
    // The part of the cell `o` may touch; covered by this access: `o` can go.
    const int64_t p0 = std::max<int64_t>(o.p0, cell.p0), p1 = std::min<int64_t>(o.p1, cell.p1);
    const int64_t b0 = std::max(o.lo, cell.lo), b1 = std::min(o.hi, cell.hi);
    const bool covered = p0 >= p1 || b0 >= b1 || (cov.p0 <= p0 && p1 <= cov.p1 && cov.lo <= b0 && b1 <= cov.hi);
    if (covered && (a.write || !o.write)) {
      unref(rid);
      continue;
    }
    c.r[keep++] = rid;
  }
  c.n = keep;
  if (c.n == RaceState::kCellCap) {  // full: forget the oldest record ordered before this access, else the oldest
    uint32_t k = 0;
    for (uint32_t j = 0; j < c.n; ++j) {
      const Rec& o = r.recs[c.r[j]];
      if (o.actor == a.actor || o.clock <= vc[o.actor]) {
        k = j;
        break;
      }
    }
    unref(c.r[k]);
    std::copy(c.r.begin() + k + 1, c.r.begin() + c.n, c.r.begin() + k);
    --c.n;
  }
  c.r[c.n++] = id;
  ++r.recs[id].refs;
}

void Checker::Impl::maybe_race(ExecContext& ctx, uint32_t other, uint32_t id) {
  RaceState& r = *race;
  const Rec &o = r.recs[other], &a = r.recs[id];
  auto key = std::make_tuple(o.core, o.ins, a.core, a.ins);
  if (std::make_pair(a.core, a.ins) < std::make_pair(o.core, o.ins)) key = std::make_tuple(a.core, a.ins, o.core, o.ins);
  if (r.reported.count(key) || std::find(checked_.begin(), checked_.end(), other) != checked_.end()) return;
  checked_.push_back(other);
  // Two cores storing the same bytes to the same place (a kernel that does not split its work): either order
  // leaves the same memory.
  const auto same_shape = [](const View& x, const View& y) {
    return x.partitions == y.partitions && x.pstep == y.pstep && x.nd == y.nd && x.step == y.step &&
           x.count == y.count && x.esize == y.esize;
  };
  if (o.write && a.write && o.core != a.core && o.hash == a.hash && o.off == a.off && same_shape(o.v, a.v)) return;
  if (o.p0 >= a.p1 || a.p0 >= o.p1 || o.lo >= a.hi || a.lo >= o.hi) return;  // boxes apart
  uint8_t* mbase = ctx.mem.of(a.v.mem).ptr(0, 0);
  View ov = o.v, av = a.v;
  ov.base = mbase + o.off;
  av.base = mbase + a.off;
  const auto oranges = byte_ranges(ov, mbase), aranges = byte_ranges(av, mbase);
  bool overlap = o.exact && a.exact;  // two full boxes that meet
  for (size_t i = 0, j = 0; i < oranges.size() && j < aranges.size() && !overlap;) {
    overlap = oranges[i].first < aranges[j].second && aranges[j].first < oranges[i].second;
    (oranges[i].second < aranges[j].second ? i : j)++;
  }
  if (!overlap) return;
  r.reported.insert(key);
  Finding f, g;
  f.kind = "racecheck";
  f.core = int(a.core);
  locate(f, *cores[a.core].program, *a.ins);
  locate(g, *cores[o.core].program, *o.ins);
  auto name = [&](const Rec& x, const Finding& xf) {
    std::string s = who(xf, int(x.core));
    if (is_dma(*x.ins)) s += " on DMA queue " + std::to_string(x.ins->params.dma_queue);
    return s;
  };
  uint64_t n = 0, m = 0;
  f.tensor = describe_elements(ctx, a.core, av, mbase, &n,
                               [&](int64_t off, unsigned k) { return hits(oranges, off, off + k); });
  const std::string theirs = describe_elements(ctx, o.core, ov, mbase, &m,
                                               [&](int64_t off, unsigned k) { return hits(aranges, off, off + k); });
  std::ostringstream os;
  os << name(a, f) << (a.write ? " writes " : " reads ") << f.tensor << " while " << name(o, g)
     << (o.write ? (a.write ? " also writes it" : " writes it") : " reads it")
     << ", and nothing orders the two (no semaphore wait, DMA completion or barrier between them)";
  f.message = os.str();
  const SourceLoc there = o.ins->loc && o.ins->loc < cores[o.core].program->locations.size()
                              ? cores[o.core].program->locations[o.ins->loc]
                              : SourceLoc{};
  f.notes.emplace_back(there, "the other access: " + name(o, g) + (o.write ? " writes " : " reads ") + theirs);
  add_finding(std::move(f));
}

// ---- end of the run -------------------------------------------------------------------------------------

void Checker::Impl::sync_finish() {
  RaceState& r = *race;
  for (uint32_t c = 0; c < r.sems.size(); ++c)
    for (size_t s = 0; s < r.sems[c].size(); ++s) {
      const RaceState::Sem& x = r.sems[c][s];
      if (x.value <= x.max_wait || x.reg_wait || !x.last) continue;
      Finding f;
      f.kind = "synccheck";
      f.core = int(x.last_core);
      locate(f, *cores[x.last_core].program, *x.last);
      std::ostringstream os;
      os << (cores.size() > 1 ? "core " + std::to_string(c) + "'s " : "") << "semaphore " << s << " ends the run at "
         << x.value;
      if (x.max_wait) os << " but no wait of the program needs more than " << x.max_wait;
      else os << " but no instruction of the program waits for it";
      os << ": its last update, by " << who(f, int(x.last_core)) << ", orders nothing (is a wait= missing?)";
      f.message = os.str();
      add_finding(std::move(f));
    }
}

}  // namespace nkisim::sim
