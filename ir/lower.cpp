// lower.cpp - the back end driver: engines -> allocation -> access patterns -> semaphores -> Program.
#include "ir/lower.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>
#include <optional>
#include <unordered_map>

#include "ir/passes.h"
#include "isa/verify.h"

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

void add_spill_notes(const Kernel& k, const std::vector<SpillNote>& all, std::vector<std::string>& notes);

// Before the first spill: if the kernel's ops, reordered by schedule_for_pressure for the memory that overflowed,
// fit without spilling, `spilled` becomes that kernel, `pl` its placement, and a note says so.
bool try_reordered(const Kernel& k, const isa::TargetDesc& target, isa::Program& p, std::optional<Kernel>& spilled,
                   std::vector<Placement>& pl, int first_failing, std::vector<std::string>* notes) {
  const Tensor& failing = k.tensors[size_t(first_failing)];
  const double other = failing.buffer == Buffer::psum ? target.sbuf_partition_bytes : target.psum_partition_bytes;
  std::optional<Kernel> r = schedule_for_pressure(k, failing.buffer, int64_t(other));
  if (!r) return false;
  isa::Program q = p;
  q.hbm_tensors.clear();
  try {
    pl = allocate(*r, target, q);
  } catch (const Error&) {
    return false;  // still too big: spill in program order
  }
  p = std::move(q);
  spilled = std::move(r);
  if (notes) {
    const SourceLoc& l = failing.loc;
    const std::string where = l.known() ? l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " : "";
    notes->push_back(where + "note: in program order the tensors live at once do not fit in " +
                     (failing.buffer == Buffer::psum ? "PSUM" : "SBUF") + " (the first that does not: '" + failing.name +
                     "'); independent operations were reordered to use each tile before the next is made, and "
                     "everything fits without spilling");
  }
  return true;
}

// The Neuron compiler does not unroll affine_range loops: a tile made in a loop is one tensor to it, and is
// re-loaded or kept as a whole. So a copy chosen for re-loading takes with it every rematerialisable copy made
// at the same line with the same shape (the loop's other iterations).
void add_siblings(const Kernel& k, const std::vector<int>& remat, std::vector<int>& copies) {
  std::vector<char> in(k.tensors.size(), 0);
  for (int ti : copies) in[size_t(ti)] = 1;
  const size_t chosen = copies.size();
  for (size_t ti = 0; ti < k.tensors.size(); ++ti) {
    if (in[ti] || remat[ti] < 0) continue;
    const Tensor& t = k.tensors[ti];
    for (size_t c = 0; c < chosen; ++c) {
      const Tensor& o = k.tensors[size_t(copies[c])];
      if (same_site(o, t)) {
        copies.push_back(int(ti));
        in[ti] = 1;
        break;
      }
    }
  }
}

// Allocates, spilling automatically allocated tensors that do not fit (at each overflow, the largest spillable
// tensor live in that memory) until everything fits: each round spills what the allocation chose, in one
// rewrite of the kernel (copied into `spilled` the first time), and allocates again (the staging tiles are new
// tensors). A failure with nothing left to spill throws the first capacity error; so does any failure of a
// kernel that places some of its tensors itself (address=, mod_alloc, alloc): it manages its memory.
std::vector<Placement> allocate_spilling(const Kernel& k, const isa::TargetDesc& target, isa::Program& p,
                                         std::optional<Kernel>& spilled, std::vector<std::string>* notes) {
  if (std::any_of(k.tensors.begin(), k.tensors.end(), [](const Tensor& t) { return t.address.has_value(); }))
    return allocate(k, target, p);
  std::optional<Error> first;
  std::vector<SpillNote> all;
  for (;;) {
    const Kernel& cur = spilled ? *spilled : k;
    SpillChoice choice;
    // At an overflow, the live tensor whose spill adds the fewest DMA transfers per op of the live range it frees
    // goes (a tile used once in a long range rather than an accumulator read and written everywhere); on a tie the
    // one whose next use is the furthest away (Belady's rule), then the larger. docs/spill.md, "The rule".
    // What that weighs is computed at the first overflow (weigh): most kernels have none.
    std::vector<char> can_spill;
    std::vector<std::vector<uint32_t>> uses;  // the ops touching each tensor, in order
    std::vector<uint32_t> moves;              // the reloads and spills spilling it would add
    std::vector<int> remat;
    bool weighed = false;
    auto weigh = [&] {
      if (weighed) return;
      weighed = true;
      can_spill = spillable_tensors(cur);
      uses.assign(cur.tensors.size(), {});
      moves.assign(cur.tensors.size(), 0);
      for (size_t i = 0; i < cur.ops.size(); ++i) {
        const Op& op = cur.ops[i];
        for_each_operand(op, [&](int, const View& v, const isa::OperandSpec& o) {
          auto& u = uses[size_t(v.tensor)];
          if (u.empty() || u.back() != i) u.push_back(uint32_t(i));
          if (o.memories & isa::memory_bit(isa::Memory::HBM)) return;  // a DMA reaches HBM itself
          moves[size_t(v.tensor)] += o.written ? 1 + (op.params.accumulate || o.keeps) : 1;
        });
      }
      // A copy of input data is re-loaded before each op reading it, one load less than it has reading ops.
      remat = rematerialisable_tensors(cur, can_spill);
      for (size_t ti = 0; ti < cur.tensors.size(); ++ti)
        if (remat[ti] >= 0) moves[ti] = uses[ti].size() > 2 ? uint32_t(uses[ti].size() - 2) : 0;
    };
    auto next_use = [&](int ti, uint32_t now) {  // the first op at or after `now` touching the tensor
      const auto& u = uses[size_t(ti)];
      auto it = std::lower_bound(u.begin(), u.end(), now);
      return it == u.end() ? UINT32_MAX : *it;
    };
    auto first_use = [&](int ti) { return uses[size_t(ti)].empty() ? 0u : uses[size_t(ti)].front(); };
    // The spill cost of a live tensor when `failing` does not fit (infinity: it may not go).
    auto price = [&](int ti, int failing) {
      weigh();
      constexpr double never = std::numeric_limits<double>::infinity();
      if (size_t(ti) >= k.tensors.size() || !can_spill[size_t(ti)]) return never;  // a staging tile of an earlier round
      const uint32_t now = first_use(failing);
      // A copy read by the op at this point would be re-loaded right there: nothing freed.
      if (remat[size_t(ti)] >= 0 && next_use(ti, now) == now && uint32_t(remat[size_t(ti)]) != now) return never;
      const auto& u = uses[size_t(ti)];
      return u.empty() ? 0.0 : double(moves[size_t(ti)]) / double(u.back() - u.front() + 1);
    };
    choice.price = price;
    int first_failing = -1;  // the first tensor that did not fit
    choice.choose = [&](const std::vector<std::pair<int, int64_t>>& live) {
      weigh();
      const int failing = live.front().first;
      if (first_failing < 0) first_failing = failing;
      const uint32_t now = first_use(failing);
      int best = -1;
      double best_cost = 0;
      uint32_t best_next = 0;
      int64_t best_bytes = -1;
      for (auto [ti, bytes] : live) {
        const double cost = price(ti, failing);
        if (cost == std::numeric_limits<double>::infinity()) continue;
        const uint32_t next = next_use(ti, now);
        if (best < 0 || cost < best_cost ||
            (cost == best_cost && (next > best_next || (next == best_next && bytes > best_bytes))))
          best = ti, best_cost = cost, best_next = next, best_bytes = bytes;
      }
      return best;
    };
    p.hbm_tensors.clear();
    std::vector<Placement> pl;
    try {
      pl = allocate(cur, target, p, &choice);
    } catch (const Error&) {
      if (first) throw *first;
      throw;
    }
    if (!first && choice.error) first = choice.error;
    if (!choice.spilled.empty()) weigh();
    // Only copies of input data chosen: they are re-loaded where they are used, in program order (the matmul
    // tutorial's M,N-blocked step: its profile's MBU is the rhs tiles loaded once per use). Else the reordering.
    const bool only_copies = std::all_of(choice.spilled.begin(), choice.spilled.end(),
                                         [&](int ti) { return remat[size_t(ti)] >= 0; });
    if (!spilled && !choice.spilled.empty() && !only_copies &&
        try_reordered(k, target, p, spilled, pl, first_failing, notes))
      return pl;
    if (choice.spilled.empty()) {
      if (notes) add_spill_notes(cur, all, *notes);
      return pl;
    }
    if (!spilled) spilled = k;
    std::vector<int> copies, others;
    for (int ti : choice.spilled) (remat[size_t(ti)] >= 0 ? copies : others).push_back(ti);
    add_siblings(cur, remat, copies);
    for (SpillNote& n : rematerialise_tensors(*spilled, copies, remat)) all.push_back(std::move(n));
    for (SpillNote& n : spill_tensors(*spilled, others)) all.push_back(std::move(n));
  }
}

// One note per place that made spilled tensors (a loop makes one tensor per iteration), in order of first spill.
void add_spill_notes(const Kernel& k, const std::vector<SpillNote>& all, std::vector<std::string>& notes) {
  struct Group {
    const SpillNote* first;
    int count = 0, reloads = 0, spills = 0;
  };
  std::vector<Group> groups;
  std::map<std::tuple<std::string, uint32_t, uint32_t, int, int64_t>, size_t> index;
  for (const SpillNote& n : all) {
    const SourceLoc& l = k.tensors[size_t(n.tensor)].loc;
    auto [it, fresh] = index.try_emplace({l.file, l.line, l.col, int(n.from) * 2 + n.remat, n.bytes}, groups.size());
    if (fresh) groups.push_back(Group{&n});
    Group& g = groups[it->second];
    ++g.count;
    g.reloads += n.reloads;
    g.spills += n.spills;
  }
  for (const Group& g : groups) {
    const SourceLoc& l = k.tensors[size_t(g.first->tensor)].loc;
    std::string where = l.known() ? l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " : "";
    std::string what = g.count == 1 ? "tensor '" + g.first->name + "' (" + std::to_string(g.first->bytes) +
                                          " bytes per partition) does"
                                    : std::to_string(g.count) + " tensors made here (the first '" + g.first->name +
                                          "', " + std::to_string(g.first->bytes) + " bytes per partition each) do";
    const std::string how = g.first->remat ? "re-loaded from input '" + g.first->source + "' before each use (" +
                                                 std::to_string(g.reloads) + " loads)"
                                           : "spilled to HBM with " + std::to_string(g.reloads) + " reload and " +
                                                 std::to_string(g.spills) + " spill DMAs";
    notes.push_back(where + "note: " + what + " not fit in " + (g.first->from == Buffer::psum ? "PSUM" : "SBUF") +
                    "; " + how);
  }
}

}  // namespace

isa::Program lower(const Kernel& input, const isa::TargetDesc& target, std::vector<std::string>* notes,
                   std::vector<TilePlacement>* tiles, SemaphorePath path) {
  const std::optional<Kernel> forwarded =
      forward_copies(input, target.psum_banks > 0 ? int64_t(target.psum_partition_bytes / target.psum_banks) : 0);
  const Kernel& source = forwarded ? *forwarded : input;
  const std::optional<Kernel> reused = reuse_recomputations(source);
  const std::optional<Kernel> interleaved = interleave_accumulation_groups(reused ? *reused : source, target);
  const Kernel& merged = interleaved ? *interleaved : reused ? *reused : source;
  const std::optional<Kernel> renamed = split_live_ranges(merged, int(target.tile_buffers));
  EngineCounts counts;  // for the streams' capacity, below
  std::vector<isa::Engine> engines = assign_engines(merged, &counts);  // (an engine error comes first)
  isa::Program p;
  p.target = target.name;
  p.kernel_name = merged.name;
  p.strings = merged.strings;
  // One allocation of `kk` (spilling if it must) into a copy of p.
  struct Allocation {
    isa::Program p;
    std::optional<Kernel> spilled;
    std::vector<std::string> notes;
    std::vector<Placement> pl;
    std::optional<Error> error;
  };
  auto allocate_into = [&](const Kernel& kk) {
    Allocation a{p, std::nullopt, {}, {}, std::nullopt};
    try {
      a.pl = allocate_spilling(kk, target, a.p, a.spilled, &a.notes);
    } catch (const Error& e) {
      a.error = e;
    }
    return a;
  };
  // The allocator rotates a tile through more buffers only where they fit: when the rotation (rename) makes the
  // kernel spill or fail and one buffer per tile does not, each tile keeps its one buffer (docs/spill.md).
  const Kernel* chosen = renamed ? &*renamed : &merged;
  Allocation a = allocate_into(*chosen);
  if (renamed && (a.error || a.spilled)) {
    Allocation one = allocate_into(merged);
    if (!one.error && (!one.spilled || a.error)) {
      a = std::move(one);
      chosen = &merged;
    }
  }
  if (a.error) throw *a.error;
  p = std::move(a.p);
  std::optional<Kernel> spilled = std::move(a.spilled);
  std::vector<Placement> pl = std::move(a.pl);
  if (notes) notes->insert(notes->end(), a.notes.begin(), a.notes.end());
  const Kernel& k = spilled ? *spilled : *chosen;
  if (spilled) engines = assign_engines(k, &counts);  // the rewritten ops (the renamed kernel has merged's ops)
  if (tiles)  // names for --check findings
    for (size_t i = 0; i < k.tensors.size() && i < pl.size(); ++i)
      if (pl[i].allocated && is_on_chip(k.tensors[i].buffer) && !k.tensors[i].shape.empty())
        tiles->push_back(TilePlacement{k.tensors[i].name, pl[i].mem, k.tensors[i].dtype, k.tensors[i].shape,
                                       pl[i].partition, pl[i].address});
  LocationTable locs(p);
  const Kernel* cur = &k;  // the ops `make` makes: k, then the scheduled kernel
  auto make = [&](size_t i, isa::Instruction& ins) {
    const Op& op = cur->ops[i];
    const isa::InstrInfo& in = isa::info(op.opcode);
    ins.op = op.opcode;
    ins.params = op.params;
    if (const std::optional<isa::ParamId> f = isa::untaken_param(ins))  // a binding set a field the row lacks
      throw error_at(op, "internal error: " + std::string(in.mnemonic) + " sets the field '" +
                             std::string(isa::param_key(*f)) + "' it does not take (its fields: " +
                             isa::param_list_text(op.opcode) + ")");
    ins.loc = locs.intern(op.loc);
    for (int s = 0; s < in.num_operands; ++s) {
      if (const std::optional<View>& v = op.operands[size_t(s)])  // a missing one: isa::verify, below
        ins.operands[size_t(s)] = to_access_pattern(k, pl.at(size_t(v->tensor)), *v, op, s, target);
    }
    if (!op.dynamic.empty()) lower_dynamic_operands(k, pl, op, ins);
  };
  // Stream capacity up front, so emit_with_semaphores does not move the (large) instructions again each
  // time a stream grows: each engine's own ops plus room for DMAs it may trigger (a DMA runs from the engine
  // that produced its input, else Sync). Unused capacity costs only address space.
  for (size_t e = 0; e < counts.per_engine.size(); ++e)
    p.streams[e].reserve(p.streams[e].size() + counts.per_engine[e] + std::min(counts.dmas, k.ops.size() / 4));
  const deps::Granules granules = memory_granules(k, pl, target);  // the same placed bytes whatever the order
  std::optional<Kernel> scheduled;
  if (target.list_schedule != 0 && !has_dynamic_control(k))
    scheduled = schedule_for_latency(k, engines, make, target, granules.chip);
  if (scheduled) cur = &*scheduled;
  emit_with_semaphores(*cur, engines, make, target, p, granules, path);
  assign_core_barriers(*cur, p);
  // The hardware rules of every instruction (isa/verify.h), once each sits in its final stream; a violation is
  // located at the kernel line that issued the instruction.
  isa::verify_program(p, target, "");
  return p;
}

}  // namespace nkisim::ir
