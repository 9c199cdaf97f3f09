// schedule.cpp - reorders a kernel's independent ops so that fewer automatically allocated on-chip tensors are
// live at once, for kernels whose program order does not fit on chip (docs/spill.md, "Reordering before
// spilling").
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {


constexpr size_t kLookahead = 256;  // ready units examined when none fits (bounds the cost on huge stretches)

struct Access {
  int tensor;
  bool write;
};

}  // namespace

// Ops that only read and write their operands (no engine state carried from one instruction to the next, no
// side effect) are free to move past any op they do not conflict with. An accumulator command (activation's
// Scalar, exponential's Vector accumulators) is engine state.
bool reorderable(const Op& op) {
  return op.ctl == Ctl::none && !op.keep_order && op.dynamic.empty() && isa::has_trait(op.opcode, isa::Trait::REORDER) &&
         op.params.reduce_cmd == isa::ReduceCmd::idle;
}

std::optional<Kernel> schedule_for_pressure(const Kernel& k, Buffer mem, int64_t other_capacity) {
  const size_t n = k.ops.size();
  // Units: a load_stationary and the multiply_moving ops that use its weights move together; every other
  // movable op is a unit of its own. A multiply_moving whose weights were loaded elsewhere pins its stretch.
  std::vector<std::pair<size_t, size_t>> units;  // [first, last] op index
  std::vector<bool> barrier;                       // per unit: stays in place
  for (size_t i = 0; i < n;) {
    const Op& op = k.ops[i];
    size_t j = i;
    bool fixed = !reorderable(op);
    if (isa::has_trait(op.opcode, isa::Trait::PE_LOAD)) {
      while (j + 1 < n && isa::has_trait(k.ops[j + 1].opcode, isa::Trait::PE_MOVE) && reorderable(k.ops[j + 1])) ++j;
    } else if (isa::has_trait(op.opcode, isa::Trait::PE_MOVE)) {
      fixed = true;
    }
    units.emplace_back(i, j);
    barrier.push_back(fixed);
    i = j + 1;
  }
  // Per tensor: bytes per partition if it is an automatically allocated tensor of `mem`, else 0; how many units
  // touch it inside each stretch, and whether it is touched outside the stretch (then it is live throughout and
  // does not count).
  // The other on-chip memory (PSUM when SBUF overflowed, and vice versa) must not overflow instead.
  const Buffer other = mem == Buffer::sbuf ? Buffer::psum : Buffer::sbuf;
  auto size_of = [&](int t, Buffer b) -> int64_t {
    const Tensor& x = k.tensors[size_t(t)];
    if (x.buffer != b || x.address) return 0;
    int64_t n = isa::dtype_size(x.dtype);
    for (size_t d = 1; d < x.shape.size(); ++d) n *= x.shape[d];
    return n;
  };
  auto bytes_of = [&](int t) { return size_of(t, mem); };
  auto other_bytes = [&](int t) { return size_of(t, other); };
  auto accesses = [&](size_t u) {
    std::vector<Access> acc;
    for (size_t i = units[u].first; i <= units[u].second; ++i) {
      const Op& op = k.ops[i];
      for_each_operand(op, [&](int s, const View& v, const isa::OperandSpec& o) {
        if (o.written && reads_operand(op, s, o)) acc.push_back({v.tensor, false});
        acc.push_back({v.tensor, o.written});
      });
    }
    return acc;
  };
  // Stretches: maximal runs of movable units. A tensor touched by more than one stretch, or by a unit that stays
  // in place, is "outside": live across the stretch whatever its order.
  std::vector<int> stretch(units.size(), -1);
  for (size_t u = 0, id = 0; u < units.size(); ++u) {
    if (barrier[u]) continue;
    if (u > 0 && !barrier[u - 1]) stretch[u] = stretch[u - 1];
    else stretch[u] = int(id++);
  }
  std::vector<int> owner(k.tensors.size(), -2);  // -2: untouched
  std::vector<char> outside(k.tensors.size(), 0), live(k.tensors.size(), 0);
  for (size_t u = 0; u < units.size(); ++u)
    for (const Access& x : accesses(u)) {
      int& o = owner[size_t(x.tensor)];
      if (o == -2) o = stretch[u];
      if (o != stretch[u] || stretch[u] < 0) outside[size_t(x.tensor)] = 1;
    }
  std::vector<size_t> order;  // the new order of units
  order.reserve(units.size());
  bool changed = false;
  std::vector<int> uses(k.tensors.size(), 0);
  std::vector<std::vector<uint32_t>> tensor_units(k.tensors.size());  // per tensor: the stretch's units touching it
  for (size_t a = 0; a < units.size();) {
    if (barrier[a]) {
      order.push_back(a++);
      continue;
    }
    size_t b = a;
    while (b < units.size() && !barrier[b]) ++b;
    // Stretch [a, b): dependencies by tensor (a write orders against every earlier access of the tensor, a read
    // against the earlier writes), in program order.
    const size_t m = b - a;
    std::vector<std::vector<Access>> acc(m);
    for (size_t u = 0; u < m; ++u) acc[u] = accesses(a + u);
    std::vector<std::vector<uint32_t>> succ(m);
    std::vector<uint32_t> preds(m, 0);
    {
      std::vector<int> last_write(k.tensors.size(), -1);
      std::vector<std::vector<uint32_t>> readers(k.tensors.size());
      auto edge = [&](int from, size_t to) {
        if (from < 0 || size_t(from) == to) return;
        succ[size_t(from)].push_back(uint32_t(to));
        ++preds[to];
      };
      for (size_t u = 0; u < m; ++u)
        for (const Access& x : acc[u]) {
          edge(last_write[size_t(x.tensor)], u);
          if (x.write) {
            for (uint32_t r : readers[size_t(x.tensor)]) edge(int(r), u);
            readers[size_t(x.tensor)].clear();
            last_write[size_t(x.tensor)] = int(u);
          } else {
            readers[size_t(x.tensor)].push_back(uint32_t(u));
          }
        }
    }
    // How many of the stretch's units touch each tensor.
    // The tensors each unit touches that count (this stretch's own, of `mem`), how many units touch each, and
    // which units touch each.
    std::vector<std::vector<int>> rel(m);
    for (size_t u = 0; u < m; ++u) {
      for (const Access& x : acc[u]) {
        const int t = x.tensor;
        if (outside[size_t(t)] || (bytes_of(t) == 0 && other_bytes(t) == 0)) continue;
        if (std::find(rel[u].begin(), rel[u].end(), t) == rel[u].end()) rel[u].push_back(t);
      }
      for (int t : rel[u]) {
        ++uses[size_t(t)];
        if (tensor_units[size_t(t)].empty() || tensor_units[size_t(t)].back() != u) tensor_units[size_t(t)].push_back(uint32_t(u));
      }
    }
    auto delta = [&](size_t u) {  // the live bytes placing u adds (negative: frees)
      int64_t d = 0;
      for (int t : rel[u]) {
        const int64_t by = bytes_of(t);
        if (!live[size_t(t)]) d += by;
        if (uses[size_t(t)] == 1) d -= by;
      }
      return d;
    };
    int64_t other_live = 0;  // live bytes of the stretch's own tensors in the other memory
    auto other_growth = [&](size_t u) {
      int64_t g = 0;
      for (int t : rel[u])
        if (!live[size_t(t)]) g += other_bytes(t);
      return g;
    };
    auto grows = [&](size_t u) { return delta(u) > 0 || other_live + other_growth(u) > other_capacity; };
    // When every ready unit grows the live bytes: the one whose placement lets a unit run that frees the most
    // (or at least grows nothing), e.g. the memset of an accumulator whose first add ends a tile's last use.
    auto enabling = [&](uint32_t u) {
      const int64_t room = other_capacity - other_live - other_growth(u);
      for (int t : rel[u]) ++live[size_t(t)], --uses[size_t(t)];  // as if u were placed
      int64_t best = INT64_MAX;
      for (uint32_t s : succ[u])
        if (preds[s] == 1 && other_growth(s) <= room) best = std::min(best, delta(s));
      for (int t : rel[u]) --live[size_t(t)], ++uses[size_t(t)];
      return best;
    };
    // List scheduling: among the units whose predecessors are placed, the earliest in program order that does not
    // grow the live bytes of `mem` (it touches only live tensors, or ends one's last use); if every ready unit
    // grows them, the earliest. A tile is used up before the next one is made.
    std::set<uint32_t> ready, fits;  // by program order; fits: the ready units that do not grow the live bytes
    std::vector<char> is_ready(m, 0);
    std::set<uint32_t> other_takers;  // ready units making a tensor of the other memory live
    auto make_ready = [&](uint32_t u) {
      ready.insert(u);
      is_ready[u] = 1;
      if (!grows(u)) fits.insert(u);
      if (other_growth(u) > 0) other_takers.insert(u);
    };
    for (size_t u = 0; u < m; ++u)
      if (preds[u] == 0) make_ready(uint32_t(u));
    size_t placed = 0;
    while (!ready.empty()) {
      uint32_t u = fits.empty() ? *ready.begin() : *fits.begin();
      if (fits.empty()) {
        int64_t best = 1;  // only a unit that enables one growing nothing; the earliest of the best
        size_t scanned = 0;
        for (auto it = ready.begin(); it != ready.end() && scanned < kLookahead; ++it, ++scanned) {
          const int64_t e = enabling(*it);
          if (e <= 0 && e < best) best = e, u = *it;
        }
      }
      ready.erase(u);
      fits.erase(u);
      other_takers.erase(u);
      is_ready[u] = 0;
      if (u != placed) changed = true;
      ++placed;
      order.push_back(a + u);
      bool other_changed = false;
      for (int t : rel[u]) {
        if (!live[size_t(t)]) other_live += other_bytes(t);
        if (uses[size_t(t)] == 1) other_live -= other_bytes(t);
        other_changed = other_changed || other_bytes(t) != 0;
        live[size_t(t)] = 1;
        --uses[size_t(t)];
      }
      auto refresh = [&](uint32_t v) {
        if (grows(v)) fits.erase(v);
        else fits.insert(v);
      };
      for (int t : rel[u])  // the ready units whose growth may have changed
        for (uint32_t v : tensor_units[size_t(t)])
          if (is_ready[v]) refresh(v);
      if (other_changed)  // the budget of the other memory moved: the ready units that take some of it
        for (uint32_t v : other_takers)
          if (is_ready[v]) refresh(v);
      for (uint32_t s : succ[u])
        if (--preds[s] == 0) make_ready(s);
    }
    for (size_t u = 0; u < m; ++u)
      for (int t : rel[u]) tensor_units[size_t(t)].clear();
    a = b;
  }
  if (!changed) return std::nullopt;
  Kernel out = k;
  out.ops.clear();
  for (size_t u : order)
    for (size_t i = units[u].first; i <= units[u].second; ++i) out.ops.push_back(k.ops[i]);
  return out;
}

}  // namespace nkisim::ir
