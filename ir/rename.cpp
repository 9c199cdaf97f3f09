// rename.cpp - the live ranges of an automatically allocated SBUF tile rotate through the target's tile_buffers
// physical buffers (docs/cost-model.md, "Session 15": "Live ranges in two buffers"). A legacy kernel that reuses one tile for
// independent values (`in_tile` loaded, reduced, loaded again for the next window) orders each load after the
// previous value's readers only because they share memory. The Neuron compiler's allocator gives such a tile more
// than one physical buffer (double buffering; the pooling windows overlap on the device): here range i goes to
// tensor i % tile_buffers, which allocation places apart, so a load waits only for the value before the previous.
//
// A live range starts at an instruction that writes the tile without reading it (a kill). Walking the tile's
// accesses in program order, each element remembers the range that last wrote it; an instruction reading an
// element some earlier range wrote (or none did) joins the ranges from that one to the current into one. So every
// element any instruction reads is the same as before: values never change.
#include <algorithm>
#include <numeric>
#include <vector>

#include "ir/passes.h"
#include "ir/view.h"

namespace nkisim::ir {
namespace {

// Element visits the pass spends at most per kernel (a tile's accesses are walked element by element).
constexpr int64_t kVisitBudget = int64_t(1) << 26;

// How an operand touches its tile: bit 0 read (reads_operand), bit 1 written.
uint8_t access_bits(const Op& op, int slot, const isa::OperandSpec& o) {
  return uint8_t((reads_operand(op, slot, o) ? 1 : 0) | (o.written ? 2 : 0));
}
constexpr uint8_t kRead = 1, kKill = 2;  // kKill: written and not read

}  // namespace

std::optional<Kernel> split_live_ranges(const Kernel& k, int buffers) {
  if (buffers < 2) return std::nullopt;
  const size_t nt = k.tensors.size();
  // Which tiles qualify: automatically allocated SBUF tiles, accessed only outside dynamic loops, by instructions
  // without run-time offsets, through views in their own dtype; and the element visits that takes.
  std::vector<char> ok(nt, 0);
  std::vector<int64_t> visits(nt, 0);
  std::vector<int> kills(nt, 0);  // instructions writing the tile without reading it, after its first access
  std::vector<char> seen(nt, 0);
  for (size_t t = 0; t < nt; ++t) ok[t] = k.tensors[t].buffer == Buffer::sbuf && auto_allocated(k.tensors[t]);
  int depth = 0;
  std::vector<std::pair<int, uint8_t>> touched;  // this op's tiles: bit 0 read, bit 1 written
  for (const Op& op : k.ops) {
    if (op.ctl == Ctl::loop_begin) ++depth;
    if (op.ctl == Ctl::loop_end) --depth;
    for (const DynOperand& d : op.dynamic)
      if (d.offsets && d.offsets->tensor >= 0) ok[size_t(d.offsets->tensor)] = 0;
    touched.clear();
    for_each_operand(op, [&](int slot, const View& v, const isa::OperandSpec& o) {
      if (v.tensor < 0) return;
      const size_t t = size_t(v.tensor);
      // (an indirect transfer writes rows chosen at run time: its tiles keep one range)
      if (depth > 0 || !op.dynamic.empty() || op.params.ind_kind != 0 || v.dtype != k.tensors[t].dtype) ok[t] = 0;
      visits[t] += v.num_elements();
      const uint8_t how = access_bits(op, slot, o);
      auto it = std::find_if(touched.begin(), touched.end(), [&](auto& m) { return m.first == v.tensor; });
      if (it == touched.end()) touched.emplace_back(v.tensor, how);
      else it->second |= how;
    });
    for (auto [t, how] : touched) {
      if (seen[size_t(t)] && how == kKill) ++kills[size_t(t)];
      seen[size_t(t)] = 1;
    }
  }
  int64_t budget = kVisitBudget;
  bool any = false;
  for (size_t t = 0; t < nt; ++t) {
    // Without a second kill the tile is one range (most tiles: written once, read later); walking its elements
    // would find nothing.
    const int64_t cost = std::max(visits[t], k.tensors[t].num_elements());
    ok[t] = ok[t] && kills[t] > 0 && cost <= budget;
    if (ok[t]) budget -= cost, any = true;
  }
  if (!any) return std::nullopt;

  // Per qualifying tile: ranges (numbered in program order; range r's group is the first range it was joined
  // with), and per element the range that last wrote it (-1: none).
  struct State {
    std::vector<int32_t> last;   // per element
    std::vector<int32_t> group;  // per range
  };
  std::vector<State> st(nt);
  struct Use {
    size_t op;
    int slot;
    int32_t range;
  };
  std::vector<std::vector<Use>> uses(nt);  // in program order
  std::vector<std::pair<int, uint8_t>> mine;  // the op's qualifying tiles and how it touches each
  for (size_t i = 0; i < k.ops.size(); ++i) {
    const Op& op = k.ops[i];
    mine.clear();
    for_each_operand(op, [&](int slot, const View& v, const isa::OperandSpec& o) {
      if (v.tensor < 0 || !ok[size_t(v.tensor)]) return;
      auto it = std::find_if(mine.begin(), mine.end(), [&](auto& m) { return m.first == v.tensor; });
      if (it == mine.end()) mine.emplace_back(v.tensor, access_bits(op, slot, o));
      else it->second |= access_bits(op, slot, o);
    });
    // Per tile: its reads first (against the ranges so far), then a kill (or the first access) starts a range, then
    // its writes mark their elements.
    for (auto [tile, how] : mine) {
      const int t = tile;  // (a structured binding the lambdas below capture: clang before 16 does not allow it)
      State& s = st[size_t(t)];
      if (s.last.empty()) s.last.assign(size_t(k.tensors[size_t(t)].num_elements()), -1);
      if ((how & kRead) && !s.group.empty()) {
        const int32_t cur = int32_t(s.group.size()) - 1;
        int32_t join = s.group[size_t(cur)];  // the earliest range these reads need
        for_each_operand(op, [&](int slot, const View& v, const isa::OperandSpec& o) {
          if (v.tensor != t || !reads_operand(op, slot, o)) return;
          for_each_element(v, [&](int64_t e) {
            const int32_t w = s.last[size_t(e)];
            join = std::min(join, w < 0 ? 0 : s.group[size_t(w)]);
          });
        });
        for (int32_t r = join; r <= cur; ++r) s.group[size_t(r)] = std::min(s.group[size_t(r)], join);
      }
      if (s.group.empty() || how == kKill) s.group.push_back(int32_t(s.group.size()));
      const int32_t cur = int32_t(s.group.size()) - 1;
      for_each_operand(op, [&](int slot, const View& v, const isa::OperandSpec& o) {
        if (v.tensor != t) return;
        uses[size_t(t)].push_back(Use{i, slot, cur});
        if (o.written) for_each_element(v, [&](int64_t e) { s.last[size_t(e)] = cur; });
      });
    }
  }

  // Groups in program order rotate through `buffers` tensors (the tile first): group i uses buffer i % buffers.
  // Two groups sharing one are ordered as the one tile was: every access of the earlier comes before the later's.
  std::optional<Kernel> out;
  for (size_t t = 0; t < nt; ++t) {
    const std::vector<int32_t>& g = st[t].group;  // joined ranges are intervals; a range's group is its start
    if (!ok[t] || std::all_of(g.begin(), g.end(), [](int32_t x) { return x == 0; })) continue;
    if (!out) out = k;
    std::vector<int> tensor_of(g.size(), -1), buffer_tensor(size_t(buffers), -1);
    buffer_tensor[0] = int(t);
    int groups = 0;
    for (const Use& u : uses[t]) {
      const int32_t grp = g[size_t(u.range)];
      if (tensor_of[size_t(grp)] < 0) {
        int& b = buffer_tensor[size_t(groups++ % buffers)];
        if (b < 0) b = out->add_tensor(out->tensors[t]);
        tensor_of[size_t(grp)] = b;
      }
      out->ops[u.op].operands[size_t(u.slot)]->tensor = tensor_of[size_t(grp)];
    }
  }
  return out;
}

}  // namespace nkisim::ir
