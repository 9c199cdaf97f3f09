// semaphores.cpp - dependency analysis over memory and semaphore insertion between streams.
//
// Streams are the in-order units of completion: the five engines and the DMA queues. Every op is
// placed on one stream (a DMA op on its queue; its trigger instruction sits in an engine's stream).
// Memory is tracked in cells (SBUF/PSUM: 32-partition quadrant x 64 B; HBM: 512 B per row touched);
// per cell we remember the last writer and, per stream, the last reader since that write. An op depends
// on the last writer of every cell it reads (RAW) and on the last writer and readers of every cell it
// writes (WAW, WAR). Older accesses are ordered before those by transitivity, so they need no tracking.
// A dependency on another stream becomes a wait on that stream's semaphore, which counts the completed
// instructions of the stream that some later op depends on. Waits already implied by an earlier wait of
// the same stream are dropped.
#include <algorithm>
#include <array>
#include <bit>
#include <unordered_map>

#include "ir/cells.h"
#include "ir/passes.h"

namespace nkisim::ir {
using namespace cells;

void emit_with_semaphores(const Kernel& k, const std::vector<isa::Engine>& engines, const MakeInstruction& make,
                          const isa::TargetDesc& t, isa::Program& p) {
  const size_t n = k.ops.size();
  if (has_dynamic_control(k)) {
    std::vector<isa::Instruction> instrs(n);
    for (size_t i = 0; i < n; ++i) make(i, instrs[i]);
    return emit_with_loops(k, engines, std::move(instrs), t, p);
  }
  const int num_queues = std::min(int(t.dma_queues), kMaxStreams - kEngineStreams);
  const int num_streams = kEngineStreams + num_queues;
  std::vector<uint8_t> stream(n), trigger(n);
  std::vector<uint32_t> position(n);  // op i is p.streams[trigger[i]][position[i]]
  isa::Instruction scratch;
  std::vector<int32_t> dep_start(n + 1, 0), deps;  // deps of op i: deps[dep_start[i] .. dep_start[i+1])

  constexpr int64_t kChipGranule = 64, kHbmGranule = 512;
  const int64_t sbuf_g = int64_t(t.sbuf_partition_bytes) / kChipGranule + 1;
  const int64_t psum_g = int64_t(t.psum_partition_bytes) / kChipGranule + 1;
  CellMap sbuf(kChipGranule, 4 * sbuf_g), psum(kChipGranule, 4 * psum_g), hbm(kHbmGranule, 0);
  auto map_for = [&](isa::Memory m) -> CellMap& {
    return m == isa::Memory::HBM ? hbm : m == isa::Memory::PSUM ? psum : sbuf;
  };
  auto per_quadrant = [&](isa::Memory m) { return m == isa::Memory::PSUM ? psum_g : sbuf_g; };

  // Queues per triggering engine: each engine owns a group of queues used round-robin. The Tensor Engine
  // (explicit engine= only, trigger_orders_dma) and targets with few queues share a group with another
  // engine: see last_dma below.
  std::array<int, kEngineStreams> next_queue{};
  auto queue_for = [&](isa::Engine e) {
    int group = e == isa::Engine::Sync ? 0 : e == isa::Engine::Vector ? 1 : e == isa::Engine::Scalar ? 2 : 3;
    int per = std::max(1, num_queues / 4);
    return std::min(group * per + next_queue[size_t(e)]++ % per, num_queues - 1);
  };

  // A queue's semaphore counts its signalling transfers in program order, but a queue completes them in
  // the order they were triggered: the same order when one engine triggers them all, not when two engines
  // share the queue (one may run ahead, and its transfer's completion would satisfy a wait meant for the
  // other's). So a DMA whose queue's previous DMA was triggered by another engine waits for that one.
  std::array<int32_t, kMaxStreams> last_dma;
  last_dma.fill(-1);

  std::vector<int32_t> prod;
  for (size_t i = 0; i < n; ++i) {
    scratch = isa::Instruction{};
    make(i, scratch);
    isa::Instruction& ins = scratch;
    const isa::InstrInfo& in = isa::info(ins.op);
    const Op& op = k.ops[i];
    prod.clear();
    size_t raw_end = 0;  // prod[0, raw_end): producers of data this op reads (before sorting)
    // Reads first, then writes, so an in-place op does not depend on itself.
    for (bool writes : {false, true}) {
      if (writes) raw_end = prod.size();
      for_each_access(ins, writes, [&](const isa::AccessPattern& ap) {
        CellMap& m = map_for(ap.mem);
        for_each_cell_state(ap, m, per_quadrant(ap.mem), [&](Cell& c) {
          if (c.last_write >= 0 && size_t(c.last_write) != i) prod.push_back(c.last_write);
          if (writes)
            for (uint32_t r = c.readers; r; r &= r - 1) {
              int32_t reader = c.read_by(std::countr_zero(r));
              if (size_t(reader) != i) prod.push_back(reader);
            }
        });
      });
    }
    // Stream placement. A DMA is triggered by the engine that produced its latest input (no wait needed
    // for it: that engine is in order; never the Tensor Engine, trigger_orders_dma) when the instruction table
    // lets that engine trigger it (dma_transpose cannot start from Vector or Tensor), else by the Sync engine.
    // Only producers of the data it reads count: a load of data no engine produced (a kernel input) is
    // triggered by Sync, which waits for its buffer to be free and so runs ahead of the compute engines, as
    // the Neuron compiler's qSyncIO queues do (docs/cost-model.md, "Which engine triggers a DMA").
    if (isa::has_trait(ins.op, isa::Trait::DMA)) {
      isa::Engine trig = isa::Engine::Sync;
      if (op.engine && *op.engine != isa::Engine::Sync) trig = *op.engine;
      else if (!op.engine) {
        int32_t latest = -1;
        for (size_t r = 0; r < raw_end; ++r)
          if (stream[size_t(prod[r])] < kEngineStreams && trigger_orders_dma(stream[size_t(prod[r])]))
            latest = std::max(latest, prod[r]);
        if (latest >= 0) {
          const isa::Engine pe = isa::Engine(stream[size_t(latest)]);
          if (in.engines & isa::engine_bit(pe)) trig = pe;
        }
      }
      trigger[i] = uint8_t(trig);
      stream[i] = uint8_t(kEngineStreams + queue_for(trig));
      int32_t& last = last_dma[stream[i]];
      if (last >= 0 && trigger[size_t(last)] != trigger[i]) prod.push_back(last);
      last = int32_t(i);
    } else {
      trigger[i] = stream[i] = uint8_t(engines[i]);
    }
    std::sort(prod.begin(), prod.end());
    prod.erase(std::unique(prod.begin(), prod.end()), prod.end());
    deps.insert(deps.end(), prod.begin(), prod.end());
    dep_start[i + 1] = int32_t(deps.size());

    // Record this op's accesses.
    for (bool writes : {false, true})
      for_each_access(ins, writes, [&](const isa::AccessPattern& ap) {
        CellMap& m = map_for(ap.mem);
        for_each_cell_state(ap, m, per_quadrant(ap.mem), [&](Cell& c) {
          if (writes) c.write(int32_t(i));
          else c.read(stream[i], int32_t(i));
        });
      });
    // Into its stream now (waits and updates are added below, once every op's dependencies are known).
    ins.engine = isa::Engine(trigger[i]);
    if (stream[i] >= kEngineStreams) ins.params.dma_queue = uint16_t(stream[i] - kEngineStreams);
    position[i] = uint32_t(p.streams[trigger[i]].size());
    p.streams[trigger[i]].push_back(std::move(ins));
  }

  // Which producers must signal: those another stream waits on (same-stream order is free, but for a queue
  // two engines trigger onto (last_dma); a DMA's trigger engine also orders it after that engine's earlier
  // instructions, except the Tensor Engine's).
  auto needs_wait = [&](size_t consumer, int32_t producer) {
    int ps = stream[size_t(producer)];
    if (ps == stream[consumer]) return trigger[size_t(producer)] != trigger[consumer];  // a shared queue
    return ps != trigger[consumer] || !trigger_orders_dma(ps);
  };
  std::vector<char> signals(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int32_t j = dep_start[i]; j < dep_start[i + 1]; ++j)
      if (needs_wait(i, deps[size_t(j)])) signals[size_t(deps[size_t(j)])] = 1;
  std::vector<uint32_t> count_at(n, 0);  // semaphore value once op i has completed (if it signals)
  std::array<uint32_t, kMaxStreams> stream_count{};
  for (size_t i = 0; i < n; ++i)
    if (signals[i]) count_at[i] = ++stream_count[stream[i]];

  std::array<std::array<uint32_t, kMaxStreams>, kEngineStreams> waited{};
  std::array<uint32_t, kMaxStreams> need{};
  for (size_t i = 0; i < n; ++i) {
    isa::Instruction& ins = p.streams[trigger[i]][position[i]];
    need.fill(0);
    for (int32_t j = dep_start[i]; j < dep_start[i + 1]; ++j) {
      int32_t d = deps[size_t(j)];
      if (needs_wait(i, d)) need[stream[size_t(d)]] = std::max(need[stream[size_t(d)]], count_at[size_t(d)]);
    }
    for (int s = 0; s < num_streams; ++s)
      if (need[size_t(s)] > waited[trigger[i]][size_t(s)]) {
        ins.waits.push_back(isa::SemWait{uint16_t(s), need[size_t(s)]});
        waited[trigger[i]][size_t(s)] = need[size_t(s)];
      }
    if (signals[i]) ins.updates.push_back(isa::SemUpdate{uint16_t(stream[i]), 1});
  }
  p.num_semaphores = uint32_t(num_streams);
}

}  // namespace nkisim::ir
