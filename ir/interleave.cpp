// interleave.cpp - runs of independent PSUM accumulation groups issued contraction-step-major (docs/cost-model.md,
// "Accumulation groups interleaved").
//
// A kernel that computes several accumulation groups one after another (for each output tile: the matmuls of
// its contraction, then the ops that evacuate it) reads each stationary and moving tile for the last time in its
// last group. When those tiles are single copies, the loads that refill them for the next block wait for that
// last read. Interleaving a run of independent groups over distinct PSUM buffers (group 0's first matmul, group
// 1's first, ..., then every group's second, ...) moves the last read of the first contraction step's tiles
// from the run's last group to early in it, so their refills overlap the rest of the run. The PSUM accumulation
// of every group keeps its order, so no value changes; what changes is when each tile is free.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

// The tensors an op range reads and writes (an accumulating write also reads).
struct Touch {
  std::vector<int> reads, writes;
  void add(const Op& op) {
    for_each_operand(op, [&](int s, const View& v, const isa::OperandSpec& o) {
      if (o.written) writes.push_back(v.tensor);
      if (reads_operand(op, s, o)) reads.push_back(v.tensor);
    });
  }
};
bool has(const std::vector<int>& v, int t) { return std::find(v.begin(), v.end(), t) != v.end(); }
bool meets(const std::vector<int>& a, const std::vector<int>& b) {
  for (int t : a)
    if (has(b, t)) return true;
  return false;
}

bool same_line(const Op& a, const Op& b) {
  return a.loc.line == b.loc.line && a.loc.col == b.loc.col && a.loc.file == b.loc.file && a.call_chain.size() == b.call_chain.size();
}

// A group: consecutive PE units (a load_stationary and the multiply_moving ops after it) writing one PSUM
// tensor, then its tail: the ops up to the next PE unit.
struct Group {
  std::vector<std::pair<size_t, size_t>> units;  // [first, last] op index
  int psum = -1;
  size_t tail_begin = 0, tail_end = 0;  // [begin, end)
  bool tail_movable = true;
  Touch units_touch, tail_touch;
};

}  // namespace

std::optional<Kernel> interleave_accumulation_groups(const Kernel& k, const isa::TargetDesc& target) {
  const size_t n = k.ops.size();
  if (target.psum_banks < 2 || target.psum_partition_bytes <= 0) return std::nullopt;
  const int64_t bank = int64_t(target.psum_partition_bytes / target.psum_banks);
  auto psum_bytes = [&](int t) -> int64_t {  // bytes per partition, in whole banks
    const Tensor& x = k.tensors[size_t(t)];
    int64_t b = isa::dtype_size(x.dtype);
    for (size_t d = 1; d < x.shape.size(); ++d) b *= x.shape[d];
    return (b + bank - 1) / bank * bank;
  };
  // The PE unit starting at op i (nullopt: none), its last op and the PSUM tensor every multiply of it writes.
  auto unit_at = [&](size_t i, size_t& last, int& psum) {
    if (i >= n || !isa::has_trait(k.ops[i].opcode, isa::Trait::PE_LOAD) || !reorderable(k.ops[i])) return false;
    size_t j = i;
    psum = -1;
    while (j + 1 < n && isa::has_trait(k.ops[j + 1].opcode, isa::Trait::PE_MOVE) && reorderable(k.ops[j + 1])) {
      const std::optional<View>& d = k.ops[j + 1].operands[0];
      if (!d) return false;
      if (psum >= 0 && d->tensor != psum) return false;
      psum = d->tensor;
      ++j;
    }
    if (psum < 0) return false;
    const Tensor& t = k.tensors[size_t(psum)];
    if (t.buffer != Buffer::psum || t.address) return false;
    last = j;
    return true;
  };
  // Groups in program order.
  std::vector<Group> groups;
  for (size_t i = 0; i < n;) {
    size_t last;
    int psum;
    if (!unit_at(i, last, psum)) {
      ++i;
      continue;
    }
    Group g;
    g.psum = psum;
    for (;;) {
      g.units.emplace_back(i, last);
      for (size_t o = i; o <= last; ++o) g.units_touch.add(k.ops[o]);
      i = last + 1;
      int next_psum;
      size_t next_last;
      if (!unit_at(i, next_last, next_psum) || next_psum != psum) break;
      last = next_last;
    }
    g.tail_begin = i;
    size_t dummy_last;
    int dummy_psum;
    while (i < n && !unit_at(i, dummy_last, dummy_psum)) {
      if (!reorderable(k.ops[i])) g.tail_movable = false;
      g.tail_touch.add(k.ops[i]);
      ++i;
    }
    g.tail_end = i;
    groups.push_back(std::move(g));
  }
  if (groups.size() < 2) return std::nullopt;
  // Each PSUM tensor's first and last op; the PSUM tensors by first op, for the ones live when a run starts.
  std::vector<std::pair<size_t, size_t>> span(k.tensors.size(), {SIZE_MAX, 0});
  std::vector<int> by_first;
  for (size_t i = 0; i < n; ++i)
    for_each_operand(k.ops[i], [&](int, const View& v, const isa::OperandSpec&) {
      auto& s = span[size_t(v.tensor)];
      if (s.first == SIZE_MAX && k.tensors[size_t(v.tensor)].buffer == Buffer::psum) by_first.push_back(v.tensor);
      s.first = std::min(s.first, i);
      s.second = std::max(s.second, i);
    });
  std::vector<int> open;  // PSUM tensors made before the run being grown that are still used at or after its start
  size_t next_first = 0;
  std::vector<uint32_t> counted(k.tensors.size(), 0);  // run number that counted the tensor
  uint32_t run_id = 0;
  // Refilled tiles: in the Neuron compiler's view a tile made in a loop is one tensor (ir/lower.cpp,
  // add_siblings), so a DMA writing a later tensor made at the same line with the same shape and dtype refills
  // the tile the earlier one is. Per such place, the ops of DMAs writing it.
  // site_key -> place number (the keys refer into k.tensors, which outlives the map)
  std::map<decltype(site_key(k.tensors.front())), int> places;
  std::vector<int> place(k.tensors.size(), -1);
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const Tensor& x = k.tensors[t];
    if (!is_on_chip(x.buffer) || !x.loc.known()) continue;
    place[t] = places.try_emplace(site_key(x), int(places.size())).first->second;
  }
  std::vector<std::vector<size_t>> dma_writes_at(places.size());  // per place: op indices of DMA writes, ascending
  for (size_t i = 0; i < n; ++i)
    if (isa::has_trait(k.ops[i].opcode, isa::Trait::DMA))
      for_each_operand(k.ops[i], [&](int, const View& v, const isa::OperandSpec& o) {
        if (o.written && place[size_t(v.tensor)] >= 0) dma_writes_at[size_t(place[size_t(v.tensor)])].push_back(i);
      });
  // Whether interleaving groups [g0, g1) (all of `steps` units) frees a refilled tile sooner: some tile their
  // units read, which a DMA after the run's matmuls refills, has its last read earlier in the interleaved order
  // than in program order. A tile every step reads (one stationary for the whole contraction) is read until the
  // run's end either way; interleaving would then only delay the evacuations.
  auto frees_sooner = [&](size_t g0, size_t g1, size_t steps) {
    const size_t end = groups[g1 - 1].units.back().second + 1, n_groups = g1 - g0;
    std::vector<std::pair<int, std::pair<size_t, size_t>>> last;  // tile -> (last unit in program order, interleaved)
    for (size_t g = g0; g < g1; ++g)
      for (size_t u = 0; u < steps; ++u)
        for (size_t o = groups[g].units[u].first; o <= groups[g].units[u].second; ++o)
          for_each_operand(k.ops[o], [&](int, const View& v, const isa::OperandSpec& sp) {
            if (sp.written || place[size_t(v.tensor)] < 0) return;
            const size_t in_program = (g - g0) * steps + u, interleaved = u * n_groups + (g - g0);
            auto it = std::find_if(last.begin(), last.end(), [&](const auto& e) { return e.first == v.tensor; });
            if (it == last.end()) last.push_back({v.tensor, {in_program, interleaved}});
            else it->second = {std::max(it->second.first, in_program), std::max(it->second.second, interleaved)};
          });
    for (const auto& [t, at] : last) {
      const auto& w = dma_writes_at[size_t(place[size_t(t)])];
      if (at.first > at.second && std::lower_bound(w.begin(), w.end(), end) != w.end()) return true;
    }
    return false;
  };
  const int64_t capacity = int64_t(target.psum_partition_bytes);
  const size_t max_run = size_t(target.psum_banks);
  Kernel out;
  std::vector<size_t> order;  // op indices in the new order
  order.reserve(n);
  size_t next_op = 0;  // ops before the first group stay in place
  for (size_t g0 = 0; g0 < groups.size();) {
    for (; next_op < groups[g0].units.front().first; ++next_op) order.push_back(next_op);
    // Grow the run [g0, g1) while the next group is independent of it and the PSUM holds all of its groups.
    size_t g1 = g0 + 1;
    int64_t run_bytes = psum_bytes(groups[g0].psum);
    // PSUM held meanwhile by tensors outside the run: those live at its start, and those first used inside it.
    const size_t lo = groups[g0].units.front().first;
    for (; next_first < by_first.size() && span[size_t(by_first[next_first])].first < lo; ++next_first)
      open.push_back(by_first[next_first]);
    open.erase(std::remove_if(open.begin(), open.end(), [&](int t) { return span[size_t(t)].second < lo; }), open.end());
    ++run_id;
    int64_t others = 0;
    for (int t : open) others += psum_bytes(t);
    counted[size_t(groups[g0].psum)] = run_id;
    size_t scanned = lo;  // ops of the run whose PSUM tensors were counted: [lo, scanned)
    if (groups[g0].tail_movable)
      while (g1 < groups.size() && g1 - g0 < max_run) {
        const Group& h = groups[g1];
        // Iterations of one loop: groups whose matmuls are made at the same kernel lines.
        bool ok = h.units.size() == groups[g0].units.size();
        for (size_t u = 0; u < h.units.size() && ok; ++u)
          ok = same_line(k.ops[h.units[u].first], k.ops[groups[g0].units[u].first]) &&
               same_line(k.ops[h.units[u].second], k.ops[groups[g0].units[u].second]);
        for (size_t g = g0; g < g1 && ok; ++g) {
          const Group& a = groups[g];
          // h's matmuls move before a's tail and interleave with a's matmuls.
          ok = a.psum != h.psum && !has(h.units_touch.reads, a.psum) && !has(a.units_touch.reads, h.psum) &&
               !has(a.tail_touch.reads, h.psum) && !has(a.tail_touch.writes, h.psum) &&
               !meets(h.units_touch.reads, a.tail_touch.writes);
        }
        if (!ok) break;
        counted[size_t(h.psum)] = run_id;
        for (; scanned < h.tail_end; ++scanned)
          for_each_operand(k.ops[scanned], [&](int, const View& v, const isa::OperandSpec&) {
            if (k.tensors[size_t(v.tensor)].buffer != Buffer::psum || counted[size_t(v.tensor)] == run_id) return;
            counted[size_t(v.tensor)] = run_id;
            if (span[size_t(v.tensor)].first >= lo) others += psum_bytes(v.tensor);
          });
        if (others + run_bytes + psum_bytes(h.psum) > capacity) break;
        run_bytes += psum_bytes(h.psum);
        ++g1;
        if (!h.tail_movable) break;  // it ends the run: its tail, staying last, moves past nothing
      }
    if (g1 - g0 > 1 && !frees_sooner(g0, g1, groups[g0].units.size())) g1 = g0 + 1;  // nothing to gain
    size_t most = 0;
    for (size_t g = g0; g < g1; ++g) most = std::max(most, groups[g].units.size());
    // Each tail as soon as its group's last unit and every earlier tail are placed: tails keep their order, and
    // a tail comes before the later groups' remaining units, as in program order.
    size_t next_tail = g0;
    std::vector<size_t> left(g1 - g0);  // units of each group not yet placed
    for (size_t g = g0; g < g1; ++g) left[g - g0] = groups[g].units.size();
    for (size_t u = 0; u < most; ++u)
      for (size_t g = g0; g < g1; ++g) {
        if (u >= groups[g].units.size()) continue;
        for (size_t o = groups[g].units[u].first; o <= groups[g].units[u].second; ++o) order.push_back(o);
        --left[g - g0];
        for (; next_tail < g1 && left[next_tail - g0] == 0; ++next_tail)
          for (size_t o = groups[next_tail].tail_begin; o < groups[next_tail].tail_end; ++o) order.push_back(o);
      }
    next_op = groups[g1 - 1].tail_end;
    g0 = g1;
  }
  for (; next_op < n; ++next_op) order.push_back(next_op);
  bool changed = false;
  for (size_t i = 0; i < n && !changed; ++i) changed = order[i] != i;
  if (!changed) return std::nullopt;
  out = k;
  out.ops.clear();
  out.ops.reserve(n);
  for (size_t i : order) out.ops.push_back(k.ops[i]);
  return out;
}

}  // namespace nkisim::ir
