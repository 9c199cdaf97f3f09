// list_schedule.cpp - the Neuron compiler's instruction scheduler and its engine choice for copies, modelled
// (docs/cost-model.md, "Session 16"). "The compiler scheduler is free to reorder independent operations for better
// hardware utilization" (nl.no_reorder, SDK nki/api/nki/language/__init__.py); nki.isa tensor_copy without engine=
// lets the "compiler select best engine based on engine workload" (SDK nki/api/nki/isa/__init__.py).
//
// After allocation, with every op's instruction made: list scheduling over the ops' dependencies through memory,
// with compile-time cost estimates (isa/cost.h, the formulas the machine model charges). Each compute engine is in
// order; when it is free it takes, of its ops whose inputs are ready, the earliest in program order, else the op
// whose inputs are ready first. Transfers start in their program order; each starts when ready, its
// shares queued on their DMA engines after dma_fixed_ns. An ANY_ENGINE op without engine= goes, when it is taken,
// to the engine of its row that would finish it first. The ops are then emitted in the order of their estimated
// start times, so every engine's stream is in its scheduled order; the semaphores are derived from that order as
// always, so values cannot change.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "ir/cells.h"
#include "ir/deps.h"
#include "ir/passes.h"
#include "isa/cost.h"
#include "isa/verify.h"

namespace nkisim::ir {
namespace {

constexpr size_t kWindow = 1024;  // an op never moves ahead of one more than this many items earlier
constexpr int kDmaResource = isa::kNumEngines;  // transfers: started when ready (see finish())
constexpr int kResources = isa::kNumEngines + 1;
constexpr int kFlex = kResources;  // the queue of flexible items (their engine is chosen when they are taken)
constexpr uint32_t kOrderOnly = 1u << 31;  // an edge that orders starts only (transfers among themselves)

// One schedulable item: an op, or a load_stationary with the multiply_moving ops that use its weights.
struct Item {
  uint32_t first = 0, last = 0;  // ops [first, last]
  int resource = 0;              // an engine, or kDmaResource
  double dur = 0;                // estimated ns (a transfer: its shares, below)
  uint32_t share0 = 0, share1 = 0;  // a transfer: its DMA engine shares, shares[share0, share1)
  bool barrier = false;          // stays in place: nothing moves across it
  bool flexible = false;         // ANY_ENGINE without engine=: candidates below
  std::array<double, isa::kNumEngines> cost{};  // flexible: ns per engine, < 0 where it may not run
};

// Dependency tracking: per on-chip granule (a quadrant's partitions x `granule` bytes: the kernel's chip granule,
// deps::MemoryGranules, so that the estimates see the dependencies the machine will wait for, no more) the last writer
// and the readers since. The readers are chains of nodes that the cells share: one access adds one node per distinct
// chain it extends (the granules of a tile read together keep one chain), and a write walks each chain once, so a
// kernel reading one large tile many times at a fine granule costs a node per read, not one per granule.
class Conflicts {
 public:
  Conflicts(const isa::TargetDesc& t, int64_t granule)
      : granule_(granule), sbuf_g_(std::max<int64_t>(1, int64_t(t.sbuf_partition_bytes) / granule)),
        psum_g_(std::max<int64_t>(1, int64_t(t.psum_partition_bytes) / granule)),
        sbuf_(size_t(sbuf_g_) * 4), psum_(size_t(psum_g_) * 4) {}

  // Records item `self`'s on-chip access and calls edge(pred) for each earlier item it must follow. HBM is not
  // tracked: only transfers touch it, and they keep their program order (below).
  template <class F>
  void access(const isa::AccessPattern& ap, bool write, int32_t self, F&& edge) {
    if (ap.mem != isa::Memory::SBUF && ap.mem != isa::Memory::PSUM) return;
    const bool ps = ap.mem == isa::Memory::PSUM;
    std::vector<Cell>& cells = ps ? psum_ : sbuf_;
    ++stamp_;
    int32_t from = -2, to = -2;  // the last chain this read extended, and the node that extends it
    cells::for_each_onchip_granule(ap, granule_, ps ? psum_g_ : sbuf_g_, [&](int64_t key) {
      Cell& c = cells[size_t(key)];
      if (c.writer >= 0 && c.writer != self) edge(c.writer);
      if (!write) {
        if (c.readers >= 0 && nodes_[size_t(c.readers)].item == self) return;
        if (c.readers != from) {
          from = c.readers;
          to = int32_t(nodes_.size());
          nodes_.push_back(Node{self, from, 0});
        }
        c.readers = to;
        return;
      }
      // A write follows every reader since the last write; chains share their tails, so a node walked once in
      // this access ends the walk.
      for (int32_t n = c.readers; n >= 0 && nodes_[size_t(n)].stamp != stamp_; n = nodes_[size_t(n)].next) {
        nodes_[size_t(n)].stamp = stamp_;
        if (nodes_[size_t(n)].item != self) edge(nodes_[size_t(n)].item);
      }
      c.readers = -1;
      c.writer = self;
    });
  }
 private:
  struct Cell {
    int32_t writer = -1;
    int32_t readers = -1;  // head of the chain of readers since the write (nodes_), -1: none
  };
  struct Node {
    int32_t item, next;
    uint32_t stamp;  // the access that last walked it
  };
  int64_t granule_, sbuf_g_, psum_g_;
  std::vector<Cell> sbuf_, psum_;
  std::vector<Node> nodes_;
  uint32_t stamp_ = 0;
};

bool any_psum(const isa::Instruction& ins) {
  for (const isa::AccessPattern& ap : ins.operands)
    if (ap.mem == isa::Memory::PSUM) return true;
  return false;
}

// Estimated ns of a made instruction on its engine; for a transfer, its shares (DMA engine, ns alone) go to
// `shares` and the result is the trigger's time on its engine.
double estimate(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t, std::vector<isa::DmaShare>& plan,
                std::vector<std::pair<uint32_t, float>>& shares) {
  if (!deps::is_dma(ins.op)) return isa::engine_ns(ins, e, t);
  isa::dma_transfer_plan(ins, t, plan);
  for (const isa::DmaShare& s : plan) shares.emplace_back(s.engine, float(s.ns));
  return 0;
}

}  // namespace

std::optional<Kernel> schedule_for_latency(const Kernel& k, std::vector<isa::Engine>& engines,
                                           const MakeInstruction& make, const isa::TargetDesc& t,
                                           int64_t chip_granule) {
  const size_t n = k.ops.size();
  if (n < 2) return std::nullopt;
  // Items, their estimates and their dependencies, in one pass over the made instructions.
  std::vector<Item> items;
  items.reserve(n);
  std::vector<uint32_t> edge_from;  // CSR by item: predecessors, built per item in program order
  std::vector<uint32_t> pred_start{0};
  std::vector<int32_t> seen;  // per item: the last item that recorded an edge from it (no duplicates)
  Conflicts conflicts(t, chip_granule);
  std::array<int32_t, isa::kNumEngines> last_state;
  last_state.fill(-1);
  int32_t last_dma = -1;
  isa::Instruction ins;
  std::vector<isa::DmaShare> plan;
  std::vector<std::pair<uint32_t, float>> shares;  // per transfer item: (DMA engine, ns alone)
  std::deque<isa::AccessPattern> extra;
  std::vector<deps::Access> acc;
  // Engines that run no compute instruction trigger transfers instead (dma_trigger_spread, ir/deps.h): a copy does
  // not take one of them away.
  const uint8_t spare = t.dma_trigger_spread != 0 ? deps::engines_without_compute(k, engines) : 0;
  for (size_t i = 0; i < n; ++i) {
    const Op& op = k.ops[i];
    ins = isa::Instruction{};
    make(i, ins);
    ins.engine = engines[i];
    const bool pe_move = isa::has_trait(op.opcode, isa::Trait::PE_MOVE);
    const bool movable = op.ctl == Ctl::none && !op.keep_order && op.dynamic.empty() &&
                         isa::has_trait(op.opcode, isa::Trait::REORDER);
    // A multiply_moving joins the unit of the load_stationary before it; one whose weights were loaded elsewhere
    // (or behind something else) stays in place.
    const bool joins = pe_move && movable && i > 0 && !items.empty() && items.back().last == i - 1 &&
                       !items.back().barrier &&
                       (isa::has_trait(k.ops[i - 1].opcode, isa::Trait::PE_LOAD) ||
                        isa::has_trait(k.ops[i - 1].opcode, isa::Trait::PE_MOVE));
    if (!joins) {
      if (!items.empty()) pred_start.push_back(uint32_t(edge_from.size()));
      Item it;
      it.first = it.last = uint32_t(i);
      it.barrier = !movable || pe_move;
      it.resource = deps::is_dma(ins.op) ? kDmaResource : int(engines[i]);
      items.push_back(it);
      seen.push_back(-1);
    }
    Item& it = items.back();
    const int32_t self = int32_t(items.size() - 1);
    it.last = uint32_t(i);
    if (it.resource != kDmaResource && !op.engine && isa::has_trait(op.opcode, isa::Trait::ANY_ENGINE) && !it.barrier) {
      // The engines of its row that may run it: GpSimd cannot access PSUM (SDK nki.isa tensor_tensor), and the
      // instruction's own rules (isa::verify) hold there.
      const isa::InstrInfo& in = isa::info(op.opcode);
      int legal = 0;
      for (int e = 0; e < isa::kNumEngines; ++e) {
        it.cost[size_t(e)] = -1;
        if (!(in.engines & isa::engine_bit(isa::Engine(e))) || (spare & (1u << e))) continue;
        if (isa::Engine(e) == isa::Engine::GpSimd && any_psum(ins)) continue;
        ins.engine = isa::Engine(e);
        if (isa::verify(ins, t)) continue;
        it.cost[size_t(e)] = isa::engine_ns(ins, isa::Engine(e), t);
        ++legal;
      }
      ins.engine = engines[i];
      it.flexible = legal > 1 && it.cost[size_t(engines[i])] >= 0;
    }
    it.share0 = uint32_t(shares.size());
    it.dur += estimate(ins, engines[i], t, plan, shares);
    it.share1 = uint32_t(shares.size());
    auto edge = [&](int32_t from) {
      if (from == self || seen[size_t(from)] == self) return;
      seen[size_t(from)] = self;
      edge_from.push_back(uint32_t(from));
    };
    // Engine state (an accumulator command, or reading the accumulators): in order with the engine's other such ops.
    if (op.params.reduce_cmd != isa::ReduceCmd::idle || isa::has_trait(op.opcode, isa::Trait::ACCUMULATOR)) {
      int32_t& last = last_state[size_t(engines[i])];
      if (last >= 0) edge(last);
      last = self;
    }
    extra.clear();
    acc.clear();
    deps::list_accesses(ins, extra, acc);
    for (const deps::Access& a : acc) conflicts.access(*a.ap, a.write, self, edge);
    // Transfers keep their program order among themselves: the emitter gives them FIFO queues in the order it
    // meets them, and a small load queued behind a large one waits for it, which these estimates do not see
    // (moved freely, Mamba v2's loads went onto the critical path: +12% at L=512). That orders their starts, not
    // their ends (kOrderOnly; an edge through memory still waits for the end): the queues run side by side and
    // share the DMA engines (finish()).
    if (it.resource == kDmaResource) {
      if (last_dma >= 0 && seen[size_t(last_dma)] != self) {
        edge(last_dma);
        edge_from.back() |= kOrderOnly;
      }
      last_dma = self;
    }
  }
  pred_start.push_back(uint32_t(edge_from.size()));
  const size_t m = items.size();

  // Successors (CSR) and predecessor counts, per stretch (maximal runs of items between barriers).
  std::vector<int32_t> stretch(m);
  for (size_t u = 0, s = 0; u < m; ++u) {
    if (items[u].barrier) ++s;
    stretch[u] = int32_t(s);
    if (items[u].barrier) ++s;
  }
  std::vector<uint32_t> npred(m, 0), succ_start(m + 1, 0), succ;
  for (size_t u = 0; u < m; ++u)
    for (uint32_t e = pred_start[u]; e < pred_start[u + 1]; ++e)
      if (const uint32_t from = edge_from[e] & ~kOrderOnly; stretch[from] == stretch[u]) ++succ_start[from + 1], ++npred[u];
  for (size_t u = 0; u < m; ++u) succ_start[u + 1] += succ_start[u];
  succ.resize(succ_start[m]);
  {
    std::vector<uint32_t> fill(succ_start.begin(), succ_start.end() - 1);
    for (size_t u = 0; u < m; ++u)
      for (uint32_t e = pred_start[u]; e < pred_start[u + 1]; ++e)
        if (const uint32_t from = edge_from[e] & ~kOrderOnly; stretch[from] == stretch[u])
          succ[fill[from]++] = uint32_t(u) | (edge_from[e] & kOrderOnly);
  }

  // List scheduling, stretch by stretch; a barrier starts once everything before it has finished.
  std::vector<double> ready(m, 0), start(m, 0);
  std::array<double, kResources> free{};
  // A transfer's shares queue on their DMA engines after its fixed latency (descriptors, semaphore to start).
  std::vector<double> dma_free(size_t(std::max(1.0, t.dma_engines)), 0.0);
  auto finish = [&](uint32_t u, double s) {
    const Item& it = items[u];
    if (it.resource != kDmaResource) return s + it.dur;
    double end = s + t.dma_fixed_ns;
    for (uint32_t x = it.share0; x < it.share1; ++x) {
      double& f = dma_free[shares[x].first % dma_free.size()];
      f = std::max(s + t.dma_fixed_ns, f) + shares[x].second;
      end = std::max(end, f);
    }
    return end;
  };
  double horizon = 0;  // everything scheduled so far has finished by then
  std::vector<uint32_t> order;
  order.reserve(m);
  using Key = std::pair<double, uint32_t>;  // (ready time, item)
  std::array<std::priority_queue<Key, std::vector<Key>, std::greater<>>, kResources + 1> waiting;
  std::array<std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>>, kResources + 1> avail;
  std::vector<uint32_t> parked;  // ready items beyond the window
  bool moved = false;
  for (size_t a = 0; a < m;) {
    if (items[a].barrier) {
      Item& b = items[a];
      const double s = std::max(horizon, b.resource == kDmaResource ? 0.0 : free[size_t(b.resource)]);
      start[a] = s;
      horizon = finish(uint32_t(a), s);
      if (b.resource != kDmaResource) free[size_t(b.resource)] = horizon;
      order.push_back(uint32_t(a++));
      continue;
    }
    size_t b = a;
    while (b < m && !items[b].barrier) ++b;
    size_t lowest = a;  // the lowest unscheduled item of the stretch
    std::vector<char> done(b - a, 0);
    auto release = [&](uint32_t u) {  // inputs ready: to its resource's queue (flexible items to their own)
      waiting[items[u].flexible ? size_t(kFlex) : size_t(items[u].resource)].push({ready[u], u});
    };
    // A flexible item's engine: the one of its candidates that would finish it first (ties: the table's default).
    auto pick = [&](uint32_t u) {
      const Item& it = items[u];
      int best = int(engines[it.first]);
      double best_end = std::max(ready[u], free[size_t(best)]) + it.cost[size_t(best)];
      for (int e = 0; e < isa::kNumEngines; ++e) {
        if (it.cost[size_t(e)] < 0) continue;
        const double end = std::max(ready[u], free[size_t(e)]) + it.cost[size_t(e)];
        if (end < best_end) best = e, best_end = end;
      }
      return best;
    };
    for (size_t u = a; u < b; ++u) {
      ready[u] = horizon;
      if (npred[u] == 0) {
        if (u < a + kWindow) release(uint32_t(u));
        else parked.push_back(uint32_t(u));
      }
    }
    for (size_t left = b - a; left > 0; --left) {
      int best_r = -1;
      double best_s = 0;
      uint32_t best_u = 0;
      for (int r = 0; r < kResources; ++r) {
        auto& w = waiting[size_t(r)];
        auto& av = avail[size_t(r)];
        if (r != kDmaResource)
          while (!w.empty() && w.top().first <= free[size_t(r)]) av.push(w.top().second), w.pop();
        double s;
        uint32_t u;
        if (!av.empty()) s = free[size_t(r)], u = av.top();
        else if (!w.empty()) s = std::max(w.top().first, r == kDmaResource ? 0.0 : free[size_t(r)]), u = w.top().second;
        else continue;
        if (best_r < 0 || s < best_s || (s == best_s && u < best_u)) best_r = r, best_s = s, best_u = u;
      }
      // The flexible items: of those ready by then, the earliest in program order, on the engine it would finish
      // first; it goes first if it would start earlier.
      {
        auto& fw = waiting[size_t(kFlex)];
        auto& fa = avail[size_t(kFlex)];
        const double limit = best_r >= 0 ? best_s : (fw.empty() ? 0.0 : fw.top().first);
        while (!fw.empty() && fw.top().first <= limit) fa.push(fw.top().second), fw.pop();
        if (!fa.empty() || !fw.empty()) {
          const uint32_t u = !fa.empty() ? fa.top() : fw.top().second;
          const int e = pick(u);
          const double s = std::max(ready[u], free[size_t(e)]);
          if (best_r < 0 || s < best_s || (s == best_s && u < best_u)) {
            best_r = kFlex, best_s = s, best_u = u;
            items[u].resource = e;
            items[u].dur = items[u].cost[size_t(e)];
          }
        }
      }
      if (best_r < 0) break;  // (cannot happen: the stretch's dependencies are acyclic)
      auto& av = avail[size_t(best_r)];
      if (!av.empty() && av.top() == best_u) av.pop();
      else waiting[size_t(best_r)].pop();
      if (best_r == kFlex) best_r = items[best_u].resource;
      const uint32_t u = best_u;
      Item& it = items[u];
      start[u] = best_s;
      const double end = finish(u, best_s);
      if (best_r != kDmaResource) free[size_t(best_r)] = end;
      horizon = std::max(horizon, end);
      if (it.flexible && isa::Engine(best_r) != engines[it.first]) {
        engines[it.first] = isa::Engine(best_r);
        moved = true;
      }
      order.push_back(u);
      done[u - a] = 1;
      for (uint32_t e = succ_start[u]; e < succ_start[u + 1]; ++e) {
        const uint32_t v = succ[e] & ~kOrderOnly;
        ready[v] = std::max(ready[v], (succ[e] & kOrderOnly) ? best_s : end);
        if (--npred[v] == 0) {
          if (v < lowest + kWindow) release(v);
          else parked.push_back(v);
        }
      }
      const size_t before = lowest;
      while (lowest < b && done[lowest - a]) ++lowest;
      if (lowest != before && !parked.empty()) {  // the window moved: release what it now holds
        size_t keep = 0;
        for (uint32_t v : parked)
          if (v < lowest + kWindow) release(v);
          else parked[keep++] = v;
        parked.resize(keep);
      }
    }
    a = b;
  }
  if (order.size() != m) return std::nullopt;  // (defensive: keep program order)

  // Emission order: by estimated start, ties in scheduling order.
  std::vector<uint32_t> rank(m);
  for (size_t r = 0; r < m; ++r) rank[order[r]] = uint32_t(r);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    return start[x] < start[y] || (start[x] == start[y] && rank[x] < rank[y]);
  });
  for (size_t r = 0; r < m && !moved; ++r) moved = order[r] != r;
  if (!moved) return std::nullopt;
  Kernel out = k;
  out.ops.clear();
  std::vector<isa::Engine> eng;
  eng.reserve(n);
  for (uint32_t u : order)
    for (uint32_t i = items[u].first; i <= items[u].last; ++i) {
      out.ops.push_back(k.ops[i]);
      eng.push_back(engines[i]);
    }
  engines = std::move(eng);
  return out;
}

}  // namespace nkisim::ir
