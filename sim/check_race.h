// check_race.h - the state of racecheck and synccheck (sim/check_race.cpp): vector clocks per actor, a mirror of
// every semaphore, and the recent accesses of every memory cell. Internal to sim/.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "isa/program.h"
#include "sim/view.h"

namespace nkisim::sim {

struct RaceState {
  // A vector clock: one counter per actor. Actors are, per core, its engines (in-order streams) and then its DMA
  // queues (in-order transfers): actor = core * per_core + (engine, or kNumEngines + queue).
  using Clock = std::vector<uint32_t>;
  uint32_t per_core = 0;
  std::vector<Clock> vc;  // per actor: what it has seen (vc[a][a]: its own current epoch)
  struct InFlight {       // a triggered DMA: its clock (the queue's, joined with its trigger's)
    const isa::Instruction* ins;
    Clock clock;
  };
  std::vector<std::deque<InFlight>> in_flight;  // per actor (queues only)

  // A semaphore of one core: its value, the largest value a wait of the program names (reg_wait: some wait's
  // value comes from a register), its last updater and its history: the value after each update and the join
  // of the clocks of every update so far (a wait for >= v joins the entry of the first value >= v: the updates
  // that made it hold).
  struct Sem {
    uint64_t value = 0, max_wait = 0;
    bool reg_wait = false;
    const isa::Instruction* last = nullptr;
    uint32_t last_core = 0;
    bool overflowed = false;
    std::deque<std::pair<uint64_t, Clock>> hist;
  };
  static constexpr size_t kMaxHistory = 1024;  // older entries are merged away (a wait for them joins more)
  std::vector<std::vector<Sem>> sems;  // [core][semaphore]

  // One access of one operand: the epoch of its actor, where it lies and what it is.
  struct Rec {
    uint32_t actor = 0, clock = 0, refs = 0;
    uint32_t core = 0;
    int slot = 0;
    bool write = false, exact = false;  // exact: it touches every byte of its box
    const isa::Instruction* ins = nullptr;
    View v;              // base unset: element 0 is at byte `off` of the memory (partition * pitch + byte)
    int64_t off = 0;
    uint32_t p0 = 0, p1 = 0;  // box: partitions [p0, p1) and bytes [lo, hi) in each (HBM: one row, addresses)
    int64_t lo = 0, hi = 0;
    uint64_t hash = 0;  // a write to HBM with several cores: of the bytes written (the same bytes stored twice race not)
  };
  std::vector<Rec> recs;
  std::vector<uint32_t> free_recs;

  // Memory cells (on chip: a 32-partition quadrant x 64 bytes; HBM: 64 bytes), each with the records of its
  // latest accesses that later ones may still race with. Allocated in pages as they are touched.
  static constexpr uint32_t kCellCap = 7;
  struct Cell {
    uint32_t n = 0;
    std::array<uint32_t, kCellCap> r{};
  };
  struct Cells {
    static constexpr unsigned kPageShift = 12;
    uint64_t count = 0;   // cells
    uint64_t chunks = 1;  // on chip: 64-byte chunks per partition
    std::vector<std::unique_ptr<Cell[]>> pages;
    Cell& at(uint64_t i) {
      auto& p = pages[i >> kPageShift];
      if (!p) p = std::make_unique<Cell[]>(size_t(1) << kPageShift);
      return p[i & ((uint64_t(1) << kPageShift) - 1)];
    }
    void init(uint64_t cells, uint64_t per_partition) {
      count = cells;
      chunks = per_partition;
      pages.resize(size_t((cells >> kPageShift) + 1));
    }
  };
  struct CoreCells {
    Cells sbuf, psum;
    uint64_t sbuf_pitch = 0, psum_pitch = 0;
  };
  std::vector<CoreCells> chip;  // per core
  Cells hbm;
  // Races reported, as (core, instruction) pairs: each pair once.
  std::set<std::tuple<uint32_t, const isa::Instruction*, uint32_t, const isa::Instruction*>> reported;
};

}  // namespace nkisim::sim
