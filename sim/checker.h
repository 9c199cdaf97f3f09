// checker.h - the Checker: the shadow state of a --check run and the executors' hooks into it (sim/check.h has
// the public side: options, findings, reports). Internal to sim/.
#pragma once
#include <memory>

#include "sim/check.h"
#include "sim/view.h"

namespace nkisim::sim {

// The shadow state of one run (all cores): written-ness per byte of HBM and of each core's SBUF and PSUM
// (initcheck); vector clocks, semaphore mirrors and recent accesses per memory cell (racecheck, synccheck).
// Executors report their operands through ExecContext (read/write), the instruction's end through
// execute(); the run's set-up marks the inputs written and asks for the end-of-run findings.
class Checker {
 public:
  Checker(uint8_t checks, bool as_errors, size_t cores, std::vector<OnChipName> names = {});
  ~Checker();
  uint8_t checks() const { return checks_; }
  // Allocates the shadows of core `core`'s context (its SBUF/PSUM; the HBM shadow once, shared).
  void attach(ExecContext& ctx, uint32_t core);
  // Bytes [lo, hi) of HBM hold data before the run; mark_inputs: the program's inputs and constants.
  void mark_hbm_written(uint64_t lo, uint64_t hi);
  void mark_inputs(const isa::Program& p);
  // Hooks (ExecContext::resolve, the indirect DMA rows, execute()): an operand of `ins` about to be read or
  // written; `v` is bound to memory (v.base set). retire() tests the reads, then marks the writes.
  void on_access(ExecContext& ctx, const isa::Instruction& ins, int slot, const View& v, bool writes);
  void on_retire(ExecContext& ctx, const isa::Instruction& ins);
  // Happens-before and semaphore events (racecheck, synccheck: sim/check_race.cpp), called by the run loops:
  // on_trigger: DMA `ins` leaves its engine for its DMA queue (the timed scheduler; a functional run triggers a
  // DMA where it executes); on_release: `ins` has passed its waits and its semaphore updates apply (every
  // instruction, where the run applies its updates: a DMA's at its completion); on_signal: a core_barrier or
  // sendrecv signals the other cores' semaphore.
  void on_trigger(ExecContext& ctx, const isa::Instruction& ins);
  void on_release(ExecContext& ctx, const isa::Instruction& ins);
  void on_signal(ExecContext& ctx, const isa::Instruction& ins);
  // After the run: outputs not fully written (initcheck), semaphores left above every wait (synccheck).
  void finish(ExecContext& hbm_owner);
  // Adds a finding made elsewhere (synccheck), with this run's severity.
  void add(Finding f);
  std::vector<Finding> take_findings();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint8_t checks_;
};

}  // namespace nkisim::sim
