// deps.cpp - the one dependency and semaphore analysis (ir/deps.h) for straight-line code and dynamic loops.
#include "ir/deps.h"

#include "isa/cost.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <functional>

namespace nkisim::ir::deps {
using namespace cells;

void MemoryGranules::add(const isa::AccessPattern& ap) {
  if (ap.mem == isa::Memory::HBM) {
    const auto [f0, f1] = free_bytes(ap);
    hbm_bits_ |= uint64_t(std::llabs(ap.offset + f0)) | uint64_t(std::llabs(ap.offset + f1));
    if (ap.num_partitions > 1) hbm_bits_ |= uint64_t(std::llabs(ap.partition_stride * isa::dtype_size(ap.dtype)));
    return;
  }
  if (ap.mem != isa::Memory::SBUF && ap.mem != isa::Memory::PSUM) return;
  const size_t m = ap.mem == isa::Memory::PSUM;
  const auto [b0, b1] = onchip_hull(ap);
  starts_[m].push_back(b0);
  ends_[m].push_back(b1);
}

Granules MemoryGranules::value() {
  int64_t g = kChipGranule;
  for (size_t m = 0; m < 2; ++m) {
    std::vector<int64_t>& s = starts_[m];
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (int64_t e : ends_[m]) {
      const auto next = std::lower_bound(s.begin(), s.end(), e);
      // halve g until a granule boundary lies in [e, *next]: byte e - 1 and byte *next then fall in different ones
      while (next != s.end() && g > kMinChipGranule && *next / g * g < e) g /= 2;
    }
  }
  int64_t h = kHbmGranule;
  while (h > 1 && (hbm_bits_ & uint64_t(h - 1))) h /= 2;
  return {g, h};
}

std::optional<isa::Engine> fixed_dma_trigger(const Op& op, bool in_loop) {
  if (op.engine) return *op.engine;
  if (in_loop || op.params.ind_kind == 3) return isa::Engine::Sync;
  return std::nullopt;
}

uint8_t engines_without_compute(const Kernel& k, const std::vector<isa::Engine>& engines) {
  uint32_t busy = 0;
  for (size_t i = 0; i < k.ops.size() && i < engines.size(); ++i)
    if (!is_dma(k.ops[i].opcode)) busy |= 1u << unsigned(engines[i]);
  return uint8_t(~busy & ((1u << isa::kNumEngines) - 1));
}

uint8_t dma_trigger_engines(const isa::Instruction& ins, const isa::TargetDesc& t) {
  const uint8_t e = isa::info(ins.op).engines;
  if (isa::dge_mode(ins, t) != isa::DgeMode::hwdge) return e;
  const uint8_t dge = isa::engine_bit(isa::Engine::Sync) | isa::engine_bit(isa::Engine::Scalar);
  return (e & dge) ? uint8_t(e & dge) : e;
}

DmaQueues::DmaQueues(const isa::TargetDesc& t)
    : num_queues_(std::min(int(t.dma_queues), kMaxStreams - kEngineStreams)) {}

uint8_t DmaQueues::next_stream(isa::Engine e) {
  const int group = e == isa::Engine::Sync ? 0 : e == isa::Engine::Vector ? 1 : e == isa::Engine::Scalar ? 2 : 3;
  const int per = std::max(1, num_queues_ / 4);
  return uint8_t(kEngineStreams + std::min(group * per + next_[size_t(e)]++ % per, num_queues_ - 1));
}

void list_accesses(const isa::Instruction& ins, std::deque<isa::AccessPattern>& extra, std::vector<Access>& out) {
  for (bool writes : {false, true})
    for_each_access(ins, writes, [&](const isa::AccessPattern& ap) {
      const std::less_equal<const isa::AccessPattern*> le;
      const bool own = le(&ins.operands.front(), &ap) && le(&ap, &ins.operands.back());
      if (!own) extra.push_back(ap);  // a dynamic operand's footprint or offset source: a temporary
      out.push_back(Access{own ? &ap : &extra.back(), writes});
    });
}

RegionAnalysis::RegionAnalysis(const isa::TargetDesc& t, DmaQueues& queues, bool loop_body, Granules granules)
    : t_(t),
      queues_(queues),
      loop_(loop_body),
      sbuf_g_(int64_t(t.sbuf_partition_bytes) / granules.chip + 1),
      psum_g_(int64_t(t.psum_partition_bytes) / granules.chip + 1),
      hbm_granule_(granules.hbm),
      sbuf_(granules.chip, 4 * sbuf_g_),
      psum_(granules.chip, 4 * psum_g_),
      hbm_(granules.hbm, 0) {
  last_dma_.fill(-1);
  trigger_waits_.fill(-1);
}

uint8_t RegionAnalysis::spread_trigger(const UnitDesc& u, int producer) {
  int32_t waits_for = -1;  // the latest unit this one depends on (prod_: every producer, reads and writes)
  for (int32_t p : prod_) waits_for = std::max(waits_for, p);
  auto may = [&](int e) {
    return (u.trigger_engines & isa::engine_bit(isa::Engine(e))) &&
           (e == int(isa::Engine::Sync) || (spare_triggers_ & (1u << e)));
  };
  // Data a compute engine produced: an engine with no compute work, not Sync (there the trigger, waiting for the
  // compute engine, would hold back the loads behind it); with none, the producer keeps it (in order, no wait).
  // Otherwise (a kernel input, or data Sync or a DMA produced): the producer when it may, then Sync, then the others.
  const bool from_compute = producer >= 0 && !may(producer);
  int candidates[4], count = 0;
  if (!from_compute && producer >= 0) candidates[count++] = producer;
  const isa::Engine compute_order[] = {isa::Engine::Scalar, isa::Engine::GpSimd};
  const isa::Engine input_order[] = {isa::Engine::Sync, isa::Engine::Scalar, isa::Engine::GpSimd};
  for (isa::Engine e : from_compute ? std::span<const isa::Engine>(compute_order) : std::span<const isa::Engine>(input_order))
    if (int(e) != producer && may(int(e))) candidates[count++] = int(e);
  // The first whose earlier triggers wait for nothing later than this one (it holds none of them back, and none
  // holds it back), else the one whose triggers wait for the earliest unit.
  int best = -1;
  for (int c = 0; c < count; ++c) {
    const int e = candidates[c];
    if (trigger_waits_[size_t(e)] <= waits_for) {
      best = e;
      break;
    }
    if (best < 0 || trigger_waits_[size_t(e)] < trigger_waits_[size_t(best)]) best = e;
  }
  if (best < 0)  // none of them may trigger it (an instruction of one engine): the producer rule
    best = producer >= 0 && (u.trigger_engines & isa::engine_bit(isa::Engine(producer))) ? producer
                                                                                          : int(isa::Engine::Sync);
  trigger_waits_[size_t(best)] = std::max(trigger_waits_[size_t(best)], waits_for);
  return uint8_t(best);
}

void RegionAnalysis::begin_pass() {
  flush_group();
  ++pass_;
  next_ = 0;
}

std::pair<uint8_t, uint8_t> RegionAnalysis::add(const UnitDesc& u, std::span<const Access> acc) {
  if (!pending_.empty() && u.group != pending_group_) flush_group();
  const bool first = pass_ == 0, last = pass_ == (loop_ ? 1 : 0);
  const size_t i = next_++;
  const int32_t n = first ? int32_t(i + 1) : int32_t(stream_.size());
  const int32_t self = int32_t(pass_) * n + int32_t(i);
  auto map_for = [&](isa::Memory m) -> CellMap& {
    return m == isa::Memory::HBM ? hbm_ : m == isa::Memory::PSUM ? psum_ : sbuf_;
  };
  auto per_quadrant = [&](isa::Memory m) { return m == isa::Memory::PSUM ? psum_g_ : sbuf_g_; };

  // Producers: reads first, then writes, so an in-place unit does not depend on itself.
  prod_.clear();
  size_t raw_end = 0;  // prod_[0, raw_end): producers of data the unit reads (before sorting)
  auto produced_by = [&](int32_t p) {  // the cells of one access mostly share their producers: kept once in a row
    if (p != self && (prod_.empty() || prod_.back() != p)) prod_.push_back(p);
  };
  for (bool writes : {false, true}) {
    if (writes) raw_end = prod_.size();
    for (const Access& a : acc) {
      if (a.write != writes) continue;
      if (!writes && a.ap->mem == isa::Memory::HBM && !may_be_written(*a.ap)) continue;  // no producer there
      if (writes && a.ap->mem == isa::Memory::HBM) settle_reads(*a.ap);  // its earlier readers
      // On chip (cells in place, one per granule), the cell before, whose producers are in prod_ already: a tile's
      // cells are mostly in one state. (HBM visits may hand over a temporary copy: no skipping there.)
      const bool on_chip = a.ap->mem != isa::Memory::HBM;
      const Cell* prev = nullptr;
      for_each_cell_state(*a.ap, map_for(a.ap->mem), per_quadrant(a.ap->mem), [&](Cell& c) {
        if (prev && c.same_inline(*prev)) return;
        if (on_chip) prev = &c;
        if (c.last_write >= 0) produced_by(c.last_write);
        if (writes)
          for (uint32_t r = c.readers; r; r &= r - 1) produced_by(c.read_by(std::countr_zero(r)));
      });
    }
  }

  // Placement (first pass; later passes keep it).
  if (first) {
    uint8_t trig = u.trigger, stream = u.stream;
    if (u.dma && u.choose_trigger) {
      trig = uint8_t(isa::Engine::Sync);
      int32_t latest = -1;
      for (size_t r = 0; r < raw_end; ++r) {
        const int s = stream_[size_t(prod_[r] % n)];
        if (s < kEngineStreams && trigger_orders_dma(s)) latest = std::max(latest, prod_[r]);
      }
      const int pe = latest >= 0 ? stream_[size_t(latest % n)] : -1;
      if (t_.dma_trigger_spread != 0) {
        trig = spread_trigger(u, pe);
      } else if (pe >= 0 && (u.trigger_engines & isa::engine_bit(isa::Engine(pe)))) {
        trig = uint8_t(pe);
      }
      stream = kUnplaced;
    }
    if (u.dma && stream == kUnplaced) stream = queues_.next_stream(isa::Engine(trig));
    if (!u.dma) stream = u.stream == kUnplaced ? trig : u.stream;
    trigger_.push_back(trig);
    stream_.push_back(stream);
    dma_.push_back(u.dma);
    group_.push_back(u.group);
  }
  const uint8_t trig = trigger_[i], stream = stream_[i];

  std::sort(prod_.begin(), prod_.end());
  prod_.erase(std::unique(prod_.begin(), prod_.end()), prod_.end());
  if (group_[i] >= 0)  // the engines' copies of one loop are ordered inside its body, not against each other
    prod_.erase(
        std::remove_if(prod_.begin(), prod_.end(), [&](int32_t d) { return group_[size_t(d % n)] == group_[i]; }),
        prod_.end());
  // A queue's semaphore counts its signalling transfers in program order, but a queue completes them in the order
  // they were triggered: the same order when one engine triggers them all, not when two engines share the queue
  // (one may run ahead, and its transfer's completion would satisfy a wait meant for the other's). So a DMA whose
  // queue's previous DMA was triggered by another engine waits for that one.
  if (dma_[i]) {
    int32_t& prev = last_dma_[stream];
    if (prev >= 0 && prev != self && trigger_[size_t(prev % n)] != trig) prod_.push_back(prev);
    prev = self;
  }
  if (last) {
    deps_.insert(deps_.end(), prod_.begin(), prod_.end());
    dep_start_.push_back(int32_t(deps_.size()));
  }

  // Record the unit's accesses (a loop's copies: once the last copy has been analysed).
  if (u.group >= 0) {
    pending_.push_back({self, stream, acc});
    pending_group_ = u.group;
  } else {
    record(self, stream, acc, false);
    record(self, stream, acc, true);
  }
  return {trig, stream};
}

void RegionAnalysis::record(int32_t self, uint8_t stream, std::span<const Access> acc, bool writes) {
  auto map_for = [&](isa::Memory m) -> CellMap& {
    return m == isa::Memory::HBM ? hbm_ : m == isa::Memory::PSUM ? psum_ : sbuf_;
  };
  auto per_quadrant = [&](isa::Memory m) { return m == isa::Memory::PSUM ? psum_g_ : sbuf_g_; };
  for (const Access& a : acc) {
    if (a.write != writes) continue;
    if (a.ap->mem == isa::Memory::HBM) {
      const auto [g0, g1] = hbm_granules(*a.ap, hbm_granule_);
      if (!writes) {  // applied when a write meets it (settle_reads)
        deferred_.push_back(DeferredRead{self, stream, *a.ap});
        deferred_g0_ = std::min(deferred_g0_, g0);
        deferred_g1_ = std::max(deferred_g1_, g1);
        continue;
      }
      settle_reads(*a.ap);
      written_g0_ = std::min(written_g0_, g0);
      written_g1_ = std::max(written_g1_, g1);
    }
    for_each_cell_state(*a.ap, map_for(a.ap->mem), per_quadrant(a.ap->mem), [&](Cell& c) {
      if (writes)
        c.write(self);
      else
        c.read(stream, self);
    });
  }
}

// Applies the deferred HBM reads, in order, before a write whose granules meet their hull (record()).
void RegionAnalysis::settle_reads(const isa::AccessPattern& write) {
  if (deferred_.empty()) return;
  const auto [g0, g1] = hbm_granules(write, hbm_granule_);
  if (g1 <= deferred_g0_ || deferred_g1_ <= g0) return;
  for (const DeferredRead& d : deferred_)
    for_each_cell_state(d.ap, hbm_, 0, [&](Cell& c) { c.read(d.stream, d.self); });
  deferred_.clear();
  deferred_g0_ = INT64_MAX;
  deferred_g1_ = INT64_MIN;
}

// Whether some HBM granule the access touches may have been written (by a unit recorded so far): a read of
// granules never written has no producer (their cells' last_write stays -1), so add() need not visit them.
bool RegionAnalysis::may_be_written(const isa::AccessPattern& ap) const {
  const auto [g0, g1] = hbm_granules(ap, hbm_granule_);
  return g0 < written_g1_ && written_g0_ < g1;
}

// A copy's reads must not hide, from its siblings, the earlier readers of its stream; a copy's write must not hide
// a sibling's read from later writers: the group's writes first, then its reads (a lone unit: reads, then writes).
void RegionAnalysis::flush_group() {
  const bool several = pending_.size() > 1;
  for (bool writes : {several, !several})
    for (const Pending& p : pending_) record(p.self, p.stream, p.acc, writes);
  pending_.clear();
  pending_group_ = -1;
}

// Whether producer -> consumer needs a semaphore: always across streams, except that a DMA's trigger engine orders
// it after that engine's earlier instructions (not the Tensor Engine's: trigger_orders_dma); within a
// stream only on a queue two engines trigger onto.
bool RegionAnalysis::needs_wait(size_t consumer, int32_t producer) const {
  const size_t p = size_t(producer) % stream_.size();
  const int ps = stream_[p];
  if (ps == stream_[consumer]) return trigger_[p] != trigger_[consumer];
  return ps != trigger_[consumer] || !trigger_orders_dma(ps);
}

void RegionAnalysis::finish() {
  flush_group();
  const size_t n = stream_.size();
  signals_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (loop_ && stream_[i] >= kEngineStreams) signals_[i] = 1;  // every DMA of a body: the loop drains them
    for (int32_t j = dep_start_[i]; j < dep_start_[i + 1]; ++j)
      if (needs_wait(i, deps_[size_t(j)])) signals_[size_t(deps_[size_t(j)]) % n] = 1;
  }
  std::vector<int32_t> count_at(n, 0);  // the semaphore's value (in the pass) once unit i has completed
  count_.fill(0);
  for (size_t i = 0; i < n; ++i)
    if (signals_[i]) count_at[i] = ++count_[stream_[i]];

  // Per consumer and producer stream the latest signal needed (one pass back when loop-carried), unless an earlier
  // wait of the same engine implies it.
  std::array<std::array<int64_t, kMaxStreams>, kEngineStreams> waited;
  for (auto& w : waited) w.fill(INT64_MIN);
  std::array<int64_t, kMaxStreams> need{};
  wait_start_.assign(1, 0);
  wait_start_.reserve(n + 1);
  waits_.clear();
  const int num_streams = queues_.num_streams();
  for (size_t i = 0; i < n; ++i) {
    need.fill(INT64_MIN);
    for (int32_t j = dep_start_[i]; j < dep_start_[i + 1]; ++j) {
      const int32_t d = deps_[size_t(j)];
      if (!needs_wait(i, d)) continue;
      const bool carried = loop_ && size_t(d) < n;
      const int s = stream_[size_t(d) % n];
      const int64_t value = int64_t(count_at[size_t(d) % n]) - (carried ? count_[size_t(s)] : 0);
      need[size_t(s)] = std::max(need[size_t(s)], value);
    }
    for (int s = 0; s < num_streams; ++s) {
      if (need[size_t(s)] == INT64_MIN || need[size_t(s)] <= waited[trigger_[i]][size_t(s)]) continue;
      waited[trigger_[i]][size_t(s)] = need[size_t(s)];
      waits_.push_back(Wait{uint8_t(s), need[size_t(s)]});
    }
    wait_start_.push_back(uint32_t(waits_.size()));
  }
}

}  // namespace nkisim::ir::deps
