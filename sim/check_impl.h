// check_impl.h - the Checker's internals, shared by sim/check_*.cpp. Internal to sim/.
#pragma once
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "sim/check_race.h"
#include "sim/checker.h"
#include "sim/view.h"

namespace nkisim::sim {

// One byte per simulated byte of one memory (1 = written), zero-filled lazily by the OS (calloc).
struct Shadow {
  explicit Shadow(uint64_t bytes);
  // Fast path: clean[c] = 1 once every byte of 64-byte chunk c was seen to be 1 (set lazily by a test; 2 = seen
  // not to be, 0 = unknown; a write resets it), so reads and rewrites of written memory cost one flag per 64
  // bytes. 64 bytes: partitions start 64-byte aligned (MemorySpace::pitch) and tiles mostly are too.
  static constexpr unsigned kChunkShift = 6;
  std::vector<uint8_t> clean;
  bool all_ones(uint64_t off, uint64_t n);  // bytes [off, off + n) are all 1
  void set_ones(uint64_t off, uint64_t n);  // writes 1 to them
  void set(uint64_t off, uint8_t value, uint64_t n);  // any value (clears the chunks' flags unless 1)
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data;
  uint64_t size = 0;
};

struct Checker::Impl {
  struct Access {  // an operand of the instruction being executed
    View v;
    const isa::Instruction* ins;
    int slot;
    bool writes;
  };
  struct Core {
    const isa::Program* program = nullptr;
    std::unique_ptr<Shadow> sbuf, psum;
    std::vector<uint8_t> pe_cols;  // stationary columns loaded from never-written / tainted data (empty: none)
    uint8_t pe_code = 0;           // their taint code
  };
  bool as_errors = false;
  std::vector<Core> cores;
  std::unique_ptr<Shadow> hbm;  // shared by the cores
  std::vector<OnChipName> names;
  std::vector<Access> pending;
  std::vector<Finding> findings;

  Shadow* shadow(uint32_t core, isa::Memory m);
  static bool all_written(Shadow& s, const View& v, const uint8_t* base);
  static void mark(Shadow& s, const View& v, const uint8_t* base);
  static const isa::HbmTensor* hbm_tensor_at(const isa::Program& p, uint64_t a);
  const OnChipName* name_at(isa::Memory mem, uint32_t part, int64_t b) const;
  // The elements of `v` that `pick` selects (by the offset of their bytes from `base` and their size) as
  // "name[a:b, ...]" (their bounding box), and their count.
  std::string describe_elements(ExecContext& ctx, uint32_t core, const View& v, const uint8_t* base,
                                uint64_t* count, const std::function<bool(int64_t, unsigned)>& pick) const;
  // The same for elements selected by their shadow state (0 never written, 1 written, k >= 2 tainted by origin k - 2).
  std::string describe_unwritten(ExecContext& ctx, uint32_t core, const View& v, const Shadow& s,
                                 const uint8_t* base, uint64_t* count,
                                 const std::function<bool(uint8_t)>& which) const;
  static void locate(Finding& f, const isa::Program& p, const isa::Instruction& ins);
  std::string who(const Finding& f, int core) const;  // "tensor_copy (vector #3)"
  // The finding of a first read of never-written elements of `a` (an accumulating dst when a.writes).
  Finding unwritten_finding(ExecContext& ctx, uint32_t core, const isa::Instruction& ins, const Access& a);
  void add_finding(Finding f);
  // racecheck and synccheck (sim/check_race.cpp); `race` is set when either is on.
  bool race_on = false, sync_on = false;
  std::unique_ptr<RaceState> race;
  struct Cover {  // partitions [p0, p1) x bytes [lo, hi) (HBM: partition 0, addresses)
    int64_t p0 = 0, p1 = 0, lo = 0, hi = 0;
  };
  std::vector<uint32_t> checked_;  // records found not to overlap the access being checked
  void race_attach(ExecContext& ctx, uint32_t core);
  uint32_t actor_of(uint32_t core, const isa::Instruction& ins, bool queue) const;
  void wait_for(uint32_t core, uint32_t sem, uint64_t value, RaceState::Clock& vc);
  void acquire(ExecContext& ctx, uint32_t core, const isa::Instruction& ins, RaceState::Clock& vc, bool passing);
  void release(uint32_t core, uint32_t sem, uint32_t add, const RaceState::Clock& clock, const isa::Instruction& ins,
               uint32_t by_core);
  void trigger(ExecContext& ctx, const isa::Instruction& ins);
  void race_retire(ExecContext& ctx, const isa::Instruction& ins);
  uint32_t new_record();
  void unref(uint32_t id);
  void race_access(ExecContext& ctx, uint32_t core, uint32_t actor, const RaceState::Clock& vc, const Access& a);
  void visit(ExecContext& ctx, RaceState::Cell& c, uint32_t id, const RaceState::Clock& vc, const Cover& cov,
             const Cover& cell);
  void maybe_race(ExecContext& ctx, uint32_t other, uint32_t id);
  void sync_finish();
  static constexpr size_t kMaxOrigins = 254;  // taint codes 2..255
  std::vector<Finding> origins;  // first reads of never-written data, reported when their taint reaches an output
};

}  // namespace nkisim::sim
