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
#include <map>
#include <memory>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

constexpr int kEngineStreams = isa::kNumEngines;

struct Cell {
  int32_t last_write = -1;
  std::vector<std::pair<uint8_t, int32_t>> reads;  // (stream, op) - at most one per stream
};

class CellMap {
 public:
  explicit CellMap(int64_t granule) : granule_(granule) {}
  Cell& at(int64_t key) { return cells_[key]; }
  int64_t granule() const { return granule_; }

 private:
  int64_t granule_;
  std::unordered_map<int64_t, Cell> cells_;
};

// Calls f(key) for every cell an access pattern touches, in a CellMap with the given granule.
template <class F>
void for_each_cell(const isa::AccessPattern& ap, int64_t granule, F&& f) {
  const int64_t es = isa::dtype_size(ap.dtype);
  int64_t lo = 0, hi = 0;  // element extent of the free pattern relative to offset
  for (int d = 0; d < ap.num_dims; ++d) {
    int64_t span = ap.dims[d].stride * int64_t(ap.dims[d].count - 1);
    if (span < 0) lo += span; else hi += span;
  }
  if (ap.mem == isa::Memory::HBM) {
    for (uint32_t r = 0; r < ap.num_partitions; ++r) {
      int64_t base = ap.offset + int64_t(r) * ap.partition_stride * es;
      int64_t b0 = base + lo * es, b1 = base + (hi + 1) * es;
      for (int64_t g = b0 / granule; g * granule < b1; ++g) f(g);
    }
    return;
  }
  const int64_t b0 = ap.offset + lo * es, b1 = ap.offset + (hi + 1) * es;
  const int64_t q0 = ap.start_partition / 32, q1 = (int64_t(ap.start_partition) + ap.num_partitions - 1) / 32;
  for (int64_t q = q0; q <= q1; ++q)
    for (int64_t g = b0 / granule; g * granule < b1; ++g) f(q * (int64_t(1) << 40) + g);
}

}  // namespace

void emit_with_semaphores(const Kernel& k, const std::vector<isa::Engine>& engines,
                          const std::vector<std::vector<isa::AccessPattern>>& operands,
                          const isa::TargetDesc& t, isa::Program& p) {
  const int num_queues = int(t.dma_queues);
  const int num_streams = kEngineStreams + num_queues;
  const size_t n = k.ops.size();
  std::vector<int> stream(n), trigger(n);
  std::vector<std::vector<int32_t>> deps(n);  // producer op per stream (latest), deduplicated below

  CellMap sbuf(64), psum(64), hbm(512);
  auto map_for = [&](isa::Memory m) -> CellMap& { return m == isa::Memory::HBM ? hbm : m == isa::Memory::PSUM ? psum : sbuf; };

  // Queues per triggering engine: each engine owns a group of 4 queues used round-robin.
  std::array<int, kEngineStreams> next_queue{};
  auto queue_for = [&](isa::Engine e) {
    int group = e == isa::Engine::Sync ? 0 : e == isa::Engine::Vector ? 1 : e == isa::Engine::Scalar ? 2 : 3;
    int per = std::max(1, num_queues / 4);
    int q = group * per + next_queue[size_t(e)]++ % per;
    return std::min(q, num_queues - 1);
  };

  for (size_t i = 0; i < n; ++i) {
    const Op& op = k.ops[i];
    const bool is_dma = isa::info(op.opcode).cost == isa::CostClass::dma;
    std::vector<int32_t> prod;
    std::vector<std::pair<const isa::AccessPattern*, bool>> accesses;
    for (size_t s = 0; s < operands[i].size(); ++s)
      if (operands[i][s].present()) accesses.push_back({&operands[i][s], isa::info(op.opcode).operands[s].written});
    // Reads first, then writes, so an in-place op does not depend on itself.
    for (bool writes : {false, true})
      for (auto& [ap, w] : accesses) {
        if (w != writes) continue;
        CellMap& m = map_for(ap->mem);
        for_each_cell(*ap, m.granule(), [&](int64_t key) {
          Cell& c = m.at(key);
          if (c.last_write >= 0 && size_t(c.last_write) != i) prod.push_back(c.last_write);
          if (writes)
            for (auto& [s, r] : c.reads)
              if (size_t(r) != i) prod.push_back(r);
        });
      }
    std::sort(prod.begin(), prod.end());
    prod.erase(std::unique(prod.begin(), prod.end()), prod.end());

    // Stream placement. A DMA is triggered by the engine that produced its latest input (no wait needed
    // for it: that engine is in order), else by the Sync engine.
    if (is_dma) {
      isa::Engine trig = isa::Engine::Sync;
      if (op.engine && *op.engine != isa::Engine::Sync) trig = *op.engine;
      else if (!op.engine)
        for (auto it = prod.rbegin(); it != prod.rend(); ++it)
          if (stream[size_t(*it)] < kEngineStreams) {
            trig = isa::Engine(stream[size_t(*it)]);
            break;
          }
      trigger[i] = int(trig);
      stream[i] = kEngineStreams + queue_for(trig);
    } else {
      trigger[i] = int(engines[i]);
      stream[i] = int(engines[i]);
    }
    deps[i] = std::move(prod);

    // Record this op's accesses.
    for (bool writes : {false, true})
      for (auto& [ap, w] : accesses) {
        if (w != writes) continue;
        CellMap& m = map_for(ap->mem);
        for_each_cell(*ap, m.granule(), [&](int64_t key) {
          Cell& c = m.at(key);
          if (writes) {
            c.reads.clear();
            c.last_write = int32_t(i);
          } else {
            auto it = std::find_if(c.reads.begin(), c.reads.end(), [&](auto& e) { return e.first == stream[i]; });
            if (it != c.reads.end()) it->second = int32_t(i);
            else c.reads.push_back({uint8_t(stream[i]), int32_t(i)});
          }
        });
      }
  }

  // Which producers must signal: those another stream waits on (same-stream order is free; a DMA's
  // trigger engine also orders it after that engine's earlier instructions).
  std::vector<char> signals(n, 0);
  auto needs_wait = [&](size_t consumer, int32_t producer) {
    int ps = stream[size_t(producer)];
    return ps != stream[consumer] && ps != trigger[consumer];
  };
  for (size_t i = 0; i < n; ++i)
    for (int32_t d : deps[i])
      if (needs_wait(i, d)) signals[size_t(d)] = 1;
  std::vector<uint32_t> count_at(n, 0);  // semaphore value once op i has completed (if it signals)
  std::vector<uint32_t> stream_count(size_t(num_streams), 0);
  for (size_t i = 0; i < n; ++i)
    if (signals[i]) count_at[i] = ++stream_count[size_t(stream[i])];

  std::map<SourceLoc, uint32_t, bool (*)(const SourceLoc&, const SourceLoc&)> locs(
      +[](const SourceLoc& a, const SourceLoc& b) { return std::tie(a.file, a.line, a.col) < std::tie(b.file, b.line, b.col); });
  std::vector<std::vector<uint32_t>> waited(kEngineStreams, std::vector<uint32_t>(size_t(num_streams), 0));
  for (size_t i = 0; i < n; ++i) {
    const Op& op = k.ops[i];
    isa::Instruction ins;
    ins.op = op.opcode;
    ins.engine = isa::Engine(trigger[i]);
    for (size_t s = 0; s < operands[i].size(); ++s) ins.operands[s] = operands[i][s];
    ins.params = op.params;
    if (stream[i] >= kEngineStreams) ins.params.dma_queue = uint16_t(stream[i] - kEngineStreams);
    // Latest producer per stream.
    std::vector<uint32_t> need(size_t(num_streams), 0);
    for (int32_t d : deps[i])
      if (needs_wait(i, d)) need[size_t(stream[size_t(d)])] = std::max(need[size_t(stream[size_t(d)])], count_at[size_t(d)]);
    for (int s = 0; s < num_streams; ++s)
      if (need[size_t(s)] > waited[size_t(trigger[i])][size_t(s)]) {
        ins.waits.push_back(isa::SemWait{uint16_t(s), need[size_t(s)]});
        waited[size_t(trigger[i])][size_t(s)] = need[size_t(s)];
      }
    if (signals[i]) ins.updates.push_back(isa::SemUpdate{uint16_t(stream[i]), 1});
    if (op.loc.known()) {
      auto [it, fresh] = locs.try_emplace(op.loc, 0);
      if (fresh) {
        p.locations.push_back(op.loc);
        it->second = uint32_t(p.locations.size() - 1);
      }
      ins.loc = it->second;
    }
    p.streams[size_t(trigger[i])].push_back(std::move(ins));
  }
  p.num_semaphores = uint32_t(num_streams);
}

}  // namespace nkisim::ir
