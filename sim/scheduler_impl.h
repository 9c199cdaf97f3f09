// scheduler_impl.h - the discrete-event Scheduler, shared by scheduler.cpp (engines, semaphores, records,
// stats), scheduler_pe.cpp (Tensor Engine paths and throttling, same-engine RAW latency, PSUM banks) and
// scheduler_dma.cpp (DMA queues, DMA engines, DGE, HBM sharing). Internal to sim/.
#pragma once
#include <array>
#include <atomic>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <queue>
#include <thread>
#include <vector>

#include "sim/cost.h"
#include "sim/exec.h"
#include "sim/sendrecv.h"
#include "sim/simulate.h"

namespace nkisim::sim::detail {

// Tensor Engine instruction roles (machine.md §4). The Tensor Engine rows of isa/instructions.def are
// classified by mnemonic: "load_stationary*" loads weights, "multiply_moving*" streams the moving tensor;
// every other Tensor instruction (e.g. a PE transpose) uses the whole array. This is the one hook to
// update if those rows are renamed.
enum class PeRole : uint8_t { none, load_stationary, multiply_moving, other };
PeRole pe_role(isa::Opcode op);

// Where an on-chip access lies: partitions [p0, p1), bytes [lo, hi) inside each partition.
struct Footprint {
  int32_t lo = 0, hi = 0;
  uint16_t p0 = 0, p1 = 0;
  isa::Memory mem = isa::Memory::None;
};
Footprint footprint(const isa::AccessPattern& ap);
inline bool overlaps(const Footprint& a, const Footprint& b) {
  return a.mem == b.mem && a.p0 < b.p1 && b.p0 < a.p1 && a.lo < b.hi && b.lo < a.hi;
}

// What the event loop needs of an instruction, compiled once by Scheduler::prepare_chunk() so the loop never
// touches the (large) isa::Instruction in a timing-only run.
// sequencer: register / branch instructions (sim/exec_control.h), run when the engine has drained.
enum class OpClass : uint8_t { datapath, dma, control, sequencer };
struct DmaPlan;
struct OpInfo {  // 40 bytes; no member initializers, so a big array of them can be left unwritten until used
  double cost_ns;                // engine_ns()
  const isa::SemWait* sems;      // nwait waits, then nupd updates (as {sem, add})
  union {
    const Footprint* fps;        // Vector/Scalar/GpSimd: nread reads, then nwrite writes
    const DmaPlan* plan;         // DMA: its transfer
    float aux;                   // load_stationary: stationary free size; multiply_moving: K x N of the moving;
                                 // other (PE transpose): its MACs
  };
  uint16_t nwait, nupd;
  uint8_t nread, nwrite;
  OpClass cls;
  PeRole role;
  bool fp8;                      // LS: the stationary is FP8; MM: the moving is FP8
  uint32_t psum_mask;            // PSUM banks a Vector/Scalar datapath instruction touches
};

enum class Ev : uint8_t { Complete, TriggerDone, EngineFree, DmaEligible, DmaShareDone, SeqDone };
inline constexpr uint8_t kTransferUnit = isa::kNumEngines;      // transfer-level events
inline constexpr uint8_t kDmaUnit0 = isa::kNumEngines + 1;      // DMA engine d is unit kDmaUnit0 + d

struct Event {  // 16 bytes
  double t;
  uint32_t id;        // instruction index in its stream / transfer id / unused
  uint16_t mask = 0;  // DmaShareDone: DMA engines (< 16) finishing a share of transfer `id` at time t
  uint8_t unit;       // engine, transfer level, or DMA engine (DmaShareDone: the lowest engine of `mask`)
  Ev kind;
  // Deterministic order: time, then unit (engines by index, then transfers, then DMA engines), then id.
  bool before(const Event& o) const {
    if (t != o.t) return t < o.t;
    if (unit != o.unit) return unit < o.unit;
    if (id != o.id) return id < o.id;
    return kind < o.kind;
  }
};

// A binary min-heap of events (a hand-written one: the event loop is the simulator's hot path).
class EventQueue {
 public:
  bool empty() const { return h_.empty(); }
  const Event& top() const { return h_.front(); }
  void push(const Event& e) {
    size_t i = h_.size();
    h_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!e.before(h_[parent])) break;
      h_[i] = h_[parent];
      i = parent;
    }
    h_[i] = e;
  }
  void pop() {
    const Event last = h_.back();
    h_.pop_back();
    const size_t n = h_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && h_[c + 1].before(h_[c])) ++c;
      if (!h_[c].before(last)) break;
      h_[i] = h_[c];
      i = c;
    }
    h_[i] = last;
  }

 private:
  std::vector<Event> h_;
};

// The candidate start time of an instruction and what set it.
struct StartCalc {
  double t = 0;
  StallCause cause = StallCause::none;
  TimingRef pred;
  uint16_t sem = 0;  // cause == semaphore: the binding wait
  uint32_t sem_value = 0;
  void raise(double t2, StallCause c, TimingRef p) {
    if (t2 > t) {
      t = t2;
      cause = c;
      pred = p;
    }
  }
};

struct EngineState {
  uint32_t pc = 0;          // next instruction to issue
  uint32_t retire = 0;      // next instruction to retire (program order)
  double free_at = 0;       // earliest time the engine may issue pc
  bool free_event = false;  // an EngineFree event is pending
  double cover = 0;         // end of the union of busy intervals so far
  double busy = 0;
  uint64_t count = 0;
  TimingRef last;           // the previous instruction issued
};

struct WriteRec {  // an in-flight result on a compute engine (same-engine RAW latency)
  Footprint fp;
  double ready = 0;  // earliest start of a dependent instruction
  uint32_t gid = 0;
};

struct Transfer {
  uint32_t gid = 0;           // trigger instruction (engine, index in its stream)
  uint8_t engine = 0;
  uint32_t index = 0;
  uint16_t queue = 0;
  uint16_t pending = 0;       // DMA engines that have not reported completion
  uint32_t nshares = 0;       // DMA engines that move data
  int32_t reg = 0;            // ind=3: the scalar_offset register at the trigger (ExecContext::dma_register)
  const DmaPlan* plan = nullptr;
  const uint32_t* rows = nullptr;  // plan->rows (one load less on the share path)
  double enqueue = 0, eligible = 0, first_start = -1;
  double last_report = -1;
  TimingRef pred;
  bool sendrecv = false;      // an LNC=2 sendrecv's outgoing transfer (sim/scheduler_sendrecv.cpp)
  bool even = false;          // its plan's `even` (sim/scheduler_dma_lockstep.cpp)
  // start_share's last share duration and what it depends on besides the plan (shares of one transfer mostly
  // have equal rows and see the same HBM split): rows, the HBM split's divisor (0 = no HBM limit).
  uint32_t dur_rows = ~0u;
  uint32_t dur_split = 0;
  double dur = 0;
};

// A DMA instruction's transfer, compiled by prepare().
struct DmaPlan {
  DmaLayout layout;
  const uint32_t* rows = nullptr;  // rows per DMA engine
  uint16_t queue = 0;
  uint16_t engines_used = 0;
  double bytes = 0, hbm_read = 0, hbm_write = 0;
  // What the trigger needs of the instruction (dma_submit does not touch the isa::Instruction): its DGE mode,
  // and for a register offset (ind_kind 3) the register.
  DgeMode dge = DgeMode::unknown;
  bool reg_offset = false;
  uint16_t reg = 0;
  // Every DMA engine of the target moves the same nonzero number of rows (sim/scheduler_dma_lockstep.cpp).
  bool even = false;
};

struct DmaEngine {
  std::vector<uint32_t> cursor;  // per queue: next position of Scheduler::dma_fifo_[q] this engine handles
  uint64_t nonempty = 0;  // bit q: cursor[q] < dma_fifo_[q].size() (queues >= 64 are always scanned)
  uint32_t empties = 0;   // queued entries with nothing to move here (reported without the engine)
  uint16_t rr = 0;        // next queue in round-robin order
  bool busy = false;
  uint16_t busy_queue = 0;  // queue of the share in progress
  bool hbm = false;      // the share in progress moves HBM data
  uint32_t transfer = 0; // the share in progress
  TimingRef share_pred;  // what delayed the share in progress (the trigger, or the transfer before it here)
  TimingRef last;        // the transfer of the last entry it processed
  double last_start = -1e300;  // when its last share's data started (dma_share_interval_ns)
};

struct SemUpdateRec {  // semaphore history (timeline mode): value after an update, when, and who made it
  int64_t value;
  double t;
  TimingRef who;
};

struct OpsUnmap {  // frees Scheduler::ops_ (mmap'ed)
  size_t bytes = 0;
  void operator()(OpInfo* p) const;
};

// The compiled form of up to kChunk consecutive instructions of one stream. Its vectors are complete
// (and never reallocated) once the chunk is published, so OpInfo may point into them.
inline constexpr uint32_t kChunkShift = 12, kChunk = 1u << kChunkShift;
struct PrepChunk {
  std::vector<isa::SemWait> sems;
  std::vector<Footprint> fps;
  std::vector<DmaPlan> plans;
  std::vector<uint32_t> rows;
};

class Scheduler {
 public:
  ~Scheduler();
  Scheduler(ExecContext& ctx, const Options& opts, Result& r);

  // ---- the cores of one run in one timeline (sim/machine.cpp) ----
  // The driver calls start(), then step() while events remain, taking the earliest next_time() over the
  // cores, then finish_run(). remote_update delivers this core's core_barrier signals to the other cores, which
  // apply them with external_update at the arrival time.
  void start();
  bool idle() const { return events_.empty(); }
  double next_time() const { return events_.top().t; }
  void step();
  void finish_run();
  // After an Error from step(): a validation error that the preparation worker found is thrown instead, as
  // it would have been found first (validate_program's order).
  void prefer_validation_error();
  uint64_t issued() const;  // instructions issued so far, all engines (Options::progress)
  void external_update(uint16_t sem, uint32_t add, double t);
  std::function<void(uint16_t sem, uint32_t add, double t)> remote_update;
  // This core's index and the run's core count; a core_barrier or sendrecv of a core without peers fails.
  // sendrecv (sim/exec_sendrecv.cpp) hands this core's src bytes to the peer / takes the peer's bytes through
  // the run's mailbox, keyed by (semaphore, sequence number).
  uint32_t core = 0, cores = 1;
  Mailbox* mailbox = nullptr;
  // sendrecv through the DMA queues (sim/scheduler_sendrecv.cpp): remote_arrival tells the peer at time t
  // that this core's transfer into its dst has completed; the peer applies it with sendrecv_arrived.
  std::function<void(uint16_t sem, int32_t n, double t)> remote_arrival;
  void sendrecv_arrived(uint16_t sem, int32_t n, double t);
  // HBM bandwidth shared by the cores of one run: their DMA engines moving HBM data split `bytes_per_ns`
  // (each core's hbm_bytes_per_ns, summed) equally. Every scheduler has one (share_hbm before start()).
  struct HbmPool {
    uint32_t active = 0;
    double bytes_per_ns = 0;
  };
  void share_hbm(HbmPool* pool) { hbm_pool_ = pool; }

 private:
  HbmPool* hbm_pool_ = nullptr;
  // ---- scheduler_prepare.cpp ----
  // Validation and compilation into ops_ / chunks_, chunk by chunk: inline for small programs, else shared by
  // a worker thread that runs ahead of the event loop and the event loop itself, which compiles chunks instead
  // of waiting for them (ensure_ready()). A validation error is always reported as validate_program() would
  // report it, before any other error.
  void start_prepare();
  void prepare_chunk(int e, uint32_t c);
  bool prepare_next(int only = -1);  // claims and compiles the next chunk of the stream with the smallest lead
  void prepare_worker();
  void ensure_ready(int e, uint32_t i) {
    if (i < ready_seen_[size_t(e)]) return;
    wait_ready(e, i);
  }
  void wait_ready(int e, uint32_t i);
  void finish_prepare();          // joins the worker; a failed preparation throws the validation error
  [[noreturn]] void throw_validation_error();

  // ---- scheduler.cpp ----
  void push(double t, uint8_t unit, Ev kind, uint32_t id) { events_.push(Event{t, id, 0, unit, kind}); }
  const isa::Instruction& ins_at(int e, uint32_t i) const { return p_.streams[size_t(e)][i]; }
  uint32_t gid(int e, uint32_t i) const { return base_[size_t(e)] + i; }
  bool waits_hold(const OpInfo& op) const { return failing_wait(op) == nullptr; }
  const isa::SemWait* failing_wait(const OpInfo& op) const {  // the first wait that does not hold, or null
    for (uint32_t k = 0; k < op.nwait; ++k)
      if (sems_[op.sems[k].sem] < int64_t(op.sems[k].value)) return &op.sems[k];
    return nullptr;
  }
  void semaphore_cause(const OpInfo& op, StartCalc& c) const;
  void try_issue(int e);
  void try_issue_all();
  void on_complete(int e, uint32_t i);
  bool issue_sequencer(int e, uint32_t i, const OpInfo& op);  // scheduler_control.cpp
  void on_sequencer_done(int e, uint32_t i);
  void retire_in_order(int e);
  void apply_updates(const OpInfo& op, TimingRef who);
  void check_deadlock() const;
  void finish();
  void build_trace();  // scheduler_trace.cpp
  void trace_slice(const std::string& track, const isa::Instruction& ins, double start, double dur, uint32_t gid);

  // ---- scheduler_pe.cpp ----
  void hazard_constraint(int e, const OpInfo& op, StartCalc& c) const;
  void semaphore_handoff(int e, StartCalc& c) const;
  void hazard_record(int e, const OpInfo& op, double end, uint32_t id);
  void init_handoff();
  void psum_constraint(int e, const OpInfo& op, StartCalc& c) const;
  void psum_record(int e, const OpInfo& op, double end, uint32_t id);
  void pe_constraint(PeRole role, StartCalc& c) const;
  double pe_started(const OpInfo& op, double start, uint32_t id, double& level);
  double throttle_level(double t);
  double pe_utilisation(const OpInfo& op) const;
  double adjusted_macs(const OpInfo& op) const;

  // ---- scheduler_dma.cpp ----
  void dma_submit(int e, uint32_t i);
  // Queues a transfer of `plan` triggered by instruction (e, i) at `enqueue`, movable from `eligible`;
  // returns its index in transfers_ (shared by dma_submit and sendrecv_step).
  void grow_transfers();
  uint32_t enqueue_transfer(int e, uint32_t i, const DmaPlan& plan, double enqueue, double eligible, uint8_t dge,
                            bool sendrecv, int32_t reg);
  void dma_kick(uint32_t d);
  void start_share(uint32_t d, size_t q, uint32_t x);  // x: the transfer at the head of queue q on engine d
  double begin_share(DmaEngine& en, Transfer& tr, uint32_t rows_d, uint32_t split, size_t q, uint32_t x,
                     TimingRef why);  // the timing part of a share's start (scheduler_dma.cpp)
  void on_dma_eligible(uint32_t x);
  void on_share_done(uint32_t d);
  void on_shares_done(uint32_t mask);
  void stage_share(uint32_t d, double end, uint32_t x);  // a share's completion, merged per (time, transfer)
  void flush_shares();
  void engine_reports(uint32_t d, uint32_t x, TimingRef why);
  void transfer_done(uint32_t x);

  // ---- scheduler_dma_lockstep.cpp ----
  // While every DMA engine is in the same state (lockstep_), dma_[0] stands for all of them and a transfer's
  // shares start and complete as one group; lockstep_break() copies dma_[0] to the others when a transfer
  // would make them differ, lockstep_rejoin() detects that they are equal again.
  void lockstep_init();
  void lockstep_eligible(uint32_t x);
  void lockstep_kick();
  void lockstep_start(size_t q, uint32_t x);
  void lockstep_done();
  void lockstep_break();
  void lockstep_rejoin();

  // ---- scheduler_sendrecv.cpp ----
  // sendrecv_step: the sendrecv at (e, i) whose pair is ready: submits its outgoing transfer (false), waits
  // for it and for the peer's (false), then returns true with its start time in `start`.
  bool sendrecv_step(int e, uint32_t i, double& start);
  void sendrecv_out_done(uint32_t x);

  ExecContext& ctx_;
  const isa::Program& p_;
  const isa::TargetDesc& t_;
  const Options& o_;
  Result& r_;
  const bool collect_;  // timeline records (trace, profile, explain)
  const bool execute_;  // run the executors (not --timing-only)
  std::array<uint32_t, isa::kNumEngines> base_{};
  std::unique_ptr<OpInfo[], OpsUnmap> ops_;  // by global id, written by prepare_chunk() (huge pages when possible)
  std::array<std::vector<PrepChunk>, isa::kNumEngines> chunks_;
  std::array<std::atomic<uint32_t>, isa::kNumEngines> claimed_{};  // chunks claimed, per stream (in order)
  std::array<std::unique_ptr<std::atomic<uint8_t>[]>, isa::kNumEngines> chunk_done_;  // per chunk: compiled
  std::array<uint32_t, isa::kNumEngines> ready_seen_{};  // the event loop: instructions [0, n) are compiled
  std::array<std::atomic<uint32_t>, isa::kNumEngines> pc_pub_{};  // the event loop's progress (worker hint)
  std::atomic<bool> prep_failed_{false}, prep_stop_{false};
  std::thread prep_thread_;
  std::exception_ptr prep_error_, loop_prep_error_;  // the worker's / the event loop's preparation failure
  std::vector<int64_t> sems_;
  std::vector<std::vector<SemUpdateRec>> sem_hist_;  // timeline mode only
  EventQueue events_;
  std::array<EngineState, isa::kNumEngines> eng_{};
  std::array<std::vector<uint8_t>, isa::kNumEngines> done_;
  double now_ = 0, last_ = 0;
  uint32_t blocked_ = 0;       // engines whose next instruction waits on a semaphore
  // Per engine: the datapath instruction (index) found blocked and the first of its waits that did not hold.
  // Semaphores only grow, so while that wait still does not hold a retry would find the engine blocked again
  // (try_issue_all skips it).
  std::array<uint32_t, isa::kNumEngines> block_pc_ = [] {
    std::array<uint32_t, isa::kNumEngines> a;
    a.fill(~0u);
    return a;
  }();
  std::array<isa::SemWait, isa::kNumEngines> block_wait_{};
  std::array<uint64_t, isa::kNumEngines> taken_{};  // taken branches per engine (Options::max_loop_iterations)
  std::array<bool, isa::kNumEngines> barrier_sent_{};  // the engine's pending core_barrier has signalled
  // sendrecv per engine: 0 pair not ready, 1 outgoing transfer in flight, 2 outgoing transfer done.
  std::array<uint8_t, isa::kNumEngines> sr_phase_{};
  std::array<double, isa::kNumEngines> sr_start_{};
  std::vector<std::pair<uint16_t, int32_t>> sr_arrived_;  // (sem, n) of the peer's completed transfers
  std::deque<DmaPlan> sr_plans_;                          // the sendrecv transfers' plans (stable addresses)
  std::deque<std::vector<uint32_t>> sr_rows_;
  bool sem_changed_ = false;   // a semaphore changed since blocked engines were last retried

  // Same-engine RAW latency: the last results of each compute engine.
  static constexpr int kRing = 8;
  std::array<std::array<WriteRec, kRing>, isa::kNumEngines> writes_{};
  std::array<uint32_t, isa::kNumEngines> write_head_{};
  std::array<double, isa::kNumEngines> handoff_ns_{};  // init_handoff()
  std::array<bool, isa::kNumEngines> handoff_on_{};
  // PSUM banks: busy-until of Vector (0) and Scalar (1) accesses per bank.
  std::array<std::array<double, 2>, 32> psum_busy_{};
  std::array<std::array<TimingRef, 2>, 32> psum_user_{};

  // Tensor Engine.
  double pe_load_free_ = 0, pe_mul_free_ = 0, pe_weights_ready_ = 0, pe_shadow_free_ = 0;
  bool pe_weights_pending_ = false;
  TimingRef pe_last_ls_, pe_last_mul_;
  double pe_stationary_m_ = 0;
  bool stationary_fp8_ = false;
  double pe_throttle_origin_ = -1;
  struct PeBusy { double start, end, density; };  // density: the interval's FLOP utilisation (0..1)
  std::deque<PeBusy> pe_hist_;  // recent multiply intervals (throttling window)
  double pe_hist_busy_ = 0, pe_thr_weighted_ = 0, pe_thr_time_ = 0;

  // DMA.
  std::vector<Transfer> transfers_;
  std::vector<std::vector<uint32_t>> dma_fifo_;  // per queue: its transfers in trigger order
  std::vector<DmaEngine> dma_;
  std::vector<double> dge_free_;
  std::vector<double> queue_done_;  // last completion per queue (trace slices)
  struct Staged {
    double end;
    uint32_t transfer, mask;
  };
  std::vector<Staged> staged_;
  double dma_busy_ = 0, dma_cover_ = 0;  // union of the DMA engines' busy intervals (shares start in time order)
  bool lockstep_ = false;       // dma_[0] stands for every DMA engine (scheduler_dma_lockstep.cpp)
  bool lockstep_allowed_ = false;
  uint32_t dma_all_mask_ = 0;   // bits of every DMA engine
  uint32_t uneven_live_ = 0;    // transfers queued or in flight whose plan is not `even`
};

// SBUF/PSUM usage counter samples for the trace, from the timeline (sim/usage.cpp).
void usage_counters(const isa::Program& p, const isa::TargetDesc& t, Result& r);

}  // namespace nkisim::sim::detail
