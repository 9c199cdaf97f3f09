// deps.h - the back end's one dependency and semaphore analysis (internal to ir/): which engine triggers a DMA and
// on which queue, what each unit of a region depends on through memory, and the semaphore waits and signals
// that order it. Straight-line code is one region (ir/semaphores.cpp); a dynamic loop body is a region analysed
// with its back edge (ir/loops.cpp, docs/dynamic-loops.md).
#pragma once
#include <array>
#include <climits>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "ir/cells.h"
#include "ir/kernel.h"
#include "isa/target.h"

namespace nkisim::ir::deps {

using cells::kEngineStreams;
using cells::kMaxStreams;

inline bool is_dma(isa::Opcode o) { return isa::has_trait(o, isa::Trait::DMA); }

// Whether a DMA's place in the stream of the engine that triggers it orders its transfer after the effects of
// that engine's earlier instructions. Not on the Tensor Engine: its next instruction issues once the previous
// one has started (the PE pipeline, docs/cost-model.md), so a transfer it triggered could land while a matmul
// or transpose still reads the SBUF the transfer overwrites. A DMA that depends on a Tensor Engine
// instruction is therefore triggered elsewhere and waits for it on a semaphore.
inline bool trigger_orders_dma(int engine_stream) { return engine_stream != int(isa::Engine::Tensor); }

// The engine that triggers DMA op `op` when the program fixes it: its engine= (Sync included: e.g. the front end
// sets it for dge_mode=hwdge, which only Sync or Scalar may trigger), else Sync inside a dynamic loop and for a DMA
// addressed by a register (its trigger engine reads the register). nullopt: the analysis chooses
// (RegionAnalysis::add, the producer rule).
std::optional<isa::Engine> fixed_dma_trigger(const Op& op, bool in_loop);
// The engines (bits) that run none of the kernel's instructions other than DMAs (`engines`: each op's engine):
// where RegionAnalysis::set_trigger_engines may put DMA triggers.
uint8_t engines_without_compute(const Kernel& k, const std::vector<isa::Engine>& engines);
// The engines (bits) that may trigger DMA instruction `ins` on target `t`: its table row's, and only Sync or Scalar
// when it runs as hardware DGE there ("The compute engine to initiate a DGE command (Sync Engine or ScalarE)",
// SDK nki/guides/architecture/trainium2_arch.rst): dge_mode=hwdge, or an nki.jit kernel's unknown on trn2/trn3.
uint8_t dma_trigger_engines(const isa::Instruction& ins, const isa::TargetDesc& t);

// On-chip memory is tracked per partition quadrant in granules of kChipGranule bytes, HBM per row in granules of
// kHbmGranule bytes, or finer for a kernel whose accesses are not aligned to them (MemoryGranules).
constexpr int64_t kChipGranule = 64, kMinChipGranule = 1, kHbmGranule = 512;

// The granules a kernel's dependency analyses use (MemoryGranules::value()).
struct Granules {
  int64_t chip = kChipGranule;
  int64_t hbm = kHbmGranule;
};

// The granules for a kernel's accesses (add() each one). On chip: the largest power of two from kMinChipGranule (1)
// to kChipGranule that puts the end of every access's byte hull (per partition) and the nearest start of another
// at or after it in different granules, so that accesses whose hulls do not overlap share no granule (partitions
// aside). A coarser one would order them as if they overlapped: e.g. the loads into adjacent tiles of a tensor
// placed at an unaligned address would each wait for the one before, which the Neuron compiler, knowing the exact
// addresses, does not do. HBM (tracked per row of an access, in runs of granules, so a fine granule costs little):
// the largest power of two up to kHbmGranule that divides the start and end of every row's byte hull and every
// row step, so that no two rows' hulls that do not overlap share one (a [d, 128] bf16 column block of a [d, S]
// output, 256 bytes a row, shared 512-byte granules with the next block, and each block's load waited for the
// store of the one before). Any granule finds every true dependency (a cell covers each byte of a hull); the
// choice only decides which false ones appear, so the static operands suffice (a run-time-offset footprint left
// out can at most bring back a false one).
class MemoryGranules {
 public:
  void add(const isa::AccessPattern& ap);
  Granules value();

 private:
  std::array<std::vector<int64_t>, 2> starts_, ends_;  // SBUF, PSUM
  uint64_t hbm_bits_ = 0;                              // OR of the HBM row hulls' ends and steps
};

// The DMA queues: each triggering engine owns a group of queues used round-robin (Sync, Vector, Scalar, then
// GpSimd and Tensor sharing the last group; targets with few queues share more).
class DmaQueues {
 public:
  explicit DmaQueues(const isa::TargetDesc& t);
  int num_streams() const { return kEngineStreams + num_queues_; }
  // The stream (kEngineStreams + queue) of the next DMA that engine e triggers.
  uint8_t next_stream(isa::Engine e);

 private:
  int num_queues_ = 0;
  std::array<int, kEngineStreams> next_{};
};

// One memory access of a unit.
struct Access {
  const isa::AccessPattern* ap;
  bool write;
};

// Appends the accesses of `ins` (cells::for_each_access) to `out`; the footprints of dynamic-offset operands are
// stored in `extra`, which must keep its elements' addresses as long as `out` is used.
void list_accesses(const isa::Instruction& ins, std::deque<isa::AccessPattern>& extra, std::vector<Access>& out);

// A unit of a region: an instruction on its stream, or a dynamic loop on one engine (ir/loops.cpp).
constexpr uint8_t kUnplaced = 0xff;
struct UnitDesc {
  uint8_t trigger = 0;         // the engine whose stream holds the unit (a DMA: the engine that triggers it)
  uint8_t stream = kUnplaced;  // the unit's stream: its engine, or a DMA's queue; kUnplaced: a DMA add() places
  bool dma = false;
  bool choose_trigger = false;  // a DMA whose trigger engine add() chooses (then `trigger` is ignored)
  uint8_t trigger_engines = 0;  // choose_trigger: the engines that may trigger it (isa::InstrInfo::engines)
  int32_t group = -1;           // units of one group >= 0 (the engines' copies of one loop) never depend on each other
};

// A wait for the semaphore of `stream` to reach `value` (in a loop body: value + it * signals_per_pass(stream)).
struct Wait {
  uint8_t stream;
  int64_t value;
};

// The analysis of one region. Memory is tracked in cells (ir/cells.h); per cell the last writer and, per stream,
// the last reader since that write. A unit depends on the last writer of every cell it reads (RAW) and on the
// last writer and readers of every cell it writes (WAW, WAR); older accesses are ordered by transitivity. A
// dependency on another stream becomes a wait on that stream's semaphore, which counts the completed units of
// the stream that some later unit waits on; a wait implied by an earlier wait of the same engine is dropped.
// A loop body is analysed in two passes: the second sees the first as the previous iteration, so loop-carried
// dependencies get waits one iteration back (value - signals_per_pass), and every DMA of a body signals (the
// loop drains its queues).
class RegionAnalysis {
 public:
  // granules: MemoryGranules::value() of the kernel's accesses.
  RegionAnalysis(const isa::TargetDesc& t, DmaQueues& queues, bool loop_body, Granules granules);

  // Starts the next pass (straight-line code: one; a loop body: two), over the same units in the same order.
  void begin_pass();
  // Adds the next unit of the pass, with its memory accesses: finds its dependencies, places it and records its
  // accesses. Returns the unit's {trigger engine, stream}. Placement (first pass only): a DMA with
  // choose_trigger is triggered by the engine that produced its latest input (that engine is in order: no wait),
  // never the Tensor Engine (trigger_orders_dma), when the DMA may run there; otherwise by Sync. Only
  // producers of data it reads count: a load of data no engine produced (a kernel input) is triggered by Sync,
  // which then runs ahead of the compute engines as the Neuron compiler's qSyncIO queues do (docs/cost-model.md,
  // "Which engine triggers a DMA"). An unplaced DMA gets the next queue of its trigger engine (DmaQueues).
  std::pair<uint8_t, uint8_t> add(const UnitDesc& u, std::span<const Access> acc);
  // With the target's dma_trigger_spread: the engines besides Sync that may trigger the DMAs add() places (engine
  // bits; the emitters pass those that run no compute instruction in the kernel). A placed DMA then goes to an
  // engine that may trigger the instruction, in this order of preference: when a compute engine (not one of these)
  // produced its input, Scalar, GpSimd (with neither, the producer keeps it); otherwise its input's producer (Sync,
  // one of these, or none), Sync, Scalar, GpSimd. It takes the first whose earlier triggers wait for nothing later
  // than it does (so it holds no later transfer back and is not held back), else the one whose triggers wait for
  // the earliest unit.
  void set_trigger_engines(uint8_t engines) { spare_triggers_ = engines; }
  // After the last pass: decides the signals and the waits.
  void finish();

  size_t size() const { return stream_.size(); }
  // Unit i's placement (add() returned it).
  uint8_t trigger(size_t i) const { return trigger_[i]; }
  uint8_t stream(size_t i) const { return stream_[i]; }
  // After finish(): unit i's waits, whether it signals its stream's semaphore, and signals per pass of a stream.
  std::span<const Wait> waits(size_t i) const {
    return {waits_.data() + wait_start_[i], waits_.data() + wait_start_[i + 1]};
  }
  bool signals(size_t i) const { return signals_[i] != 0; }
  const std::array<int32_t, kMaxStreams>& signals_per_pass() const { return count_; }

 private:
  bool needs_wait(size_t consumer, int32_t producer) const;
  uint8_t spread_trigger(const UnitDesc& u, int producer);
  bool may_be_written(const isa::AccessPattern& ap) const;
  void record(int32_t self, uint8_t stream, std::span<const Access> acc, bool writes);
  void settle_reads(const isa::AccessPattern& write);
  void flush_group();

  const isa::TargetDesc& t_;
  DmaQueues& queues_;
  bool loop_;
  int pass_ = -1;
  size_t next_ = 0;  // the next unit of the pass
  int64_t sbuf_g_, psum_g_, hbm_granule_;
  cells::CellMap sbuf_, psum_, hbm_;
  int64_t written_g0_ = INT64_MAX, written_g1_ = INT64_MIN;  // hull of the HBM granules written so far
  // HBM reads not yet applied to their cells. A read's record matters only to a later write of its granules (the
  // producers of a read are the last writers), so record() keeps HBM reads here, in order, until a write whose
  // granules meet their hull (settle_reads): each cell then sees the same reads and writes in the same order.
  // A kernel's input that nothing writes is never visited for its reads.
  struct DeferredRead {
    int32_t self;
    uint8_t stream;
    isa::AccessPattern ap;
  };
  std::vector<DeferredRead> deferred_;
  int64_t deferred_g0_ = INT64_MAX, deferred_g1_ = INT64_MIN;  // hull of their granules
  std::array<int32_t, kMaxStreams> last_dma_;
  uint8_t spare_triggers_ = 0;                            // set_trigger_engines
  std::array<int32_t, isa::kNumEngines> trigger_waits_;  // per engine: the latest unit its DMA triggers wait for
  std::vector<uint8_t> trigger_, stream_, dma_;
  std::vector<int32_t> group_;
  std::vector<int32_t> dep_start_{0}, deps_;  // last pass: unit i's producers (ids pass * n + unit)
  std::vector<int32_t> prod_;
  // The engines' copies of one loop (a group) run side by side: each must see the memory as it was before the
  // loop, so their accesses are recorded once the group's last copy has been analysed (flush_group).
  struct Pending {
    int32_t self;
    uint8_t stream;
    std::span<const Access> acc;
  };
  std::vector<Pending> pending_;
  int32_t pending_group_ = -1;
  std::vector<char> signals_;
  std::array<int32_t, kMaxStreams> count_{};
  std::vector<uint32_t> wait_start_;
  std::vector<Wait> waits_;
};

}  // namespace nkisim::ir::deps
