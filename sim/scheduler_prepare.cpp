// scheduler_prepare.cpp - the one pass over the program before a timed run: validation (a fast path that
// falls back to ExecContext::check for the exact located message) and compilation of every instruction
// into the compact OpInfo the event loop works on (costs, waits, updates, footprints, PSUM banks). The
// pass reads each isa::Instruction once, in order, with prefetching: it is memory-bound on big programs.
#include <pthread.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <algorithm>
#include <array>

#include "isa/verify.h"
#include "sim/exec_control.h"
#include "sim/scheduler.h"
#include "sim/scheduler_impl.h"

namespace nkisim::sim {
using isa::Engine;
using isa::Instruction;
using isa::Memory;

namespace {

unsigned esize(isa::DType t) {
  static const auto sizes = [] {
    std::array<uint8_t, 256> a{};
    for (int k = 0; k < isa::kNumDTypes && k < 256; ++k) a[size_t(k)] = uint8_t(isa::dtype_size(isa::DType(k)));
    return a;
  }();
  return sizes[uint8_t(t)];
}

// Byte extent [lo, hi) of `ap` relative to its partition (on chip) or absolute (HBM), as describe()
// computes it; false when the pattern is empty. 128-bit arithmetic only when a term could overflow.
bool extent(const isa::AccessPattern& ap, __int128& lo, __int128& hi) {
  const int64_t es = esize(ap.dtype);
  bool empty = ap.num_partitions == 0;
  const int nd = std::min<int>(ap.num_dims, isa::kMaxFreeDims);
  int64_t l = 0, h = 0;
  bool small = ap.num_partitions < (1u << 24) && ap.partition_stride > -(int64_t(1) << 30) &&
               ap.partition_stride < (int64_t(1) << 30);
  for (int d = 0; d < nd; ++d)
    small = small && ap.dims[d].count < (1u << 24) && ap.dims[d].stride > -(int64_t(1) << 30) &&
            ap.dims[d].stride < (int64_t(1) << 30);
  if (small) {  // every product fits in 64 bits
    for (int d = 0; d < nd; ++d) {
      if (ap.dims[d].count == 0) empty = true;
      const int64_t span = int64_t(ap.dims[d].count ? ap.dims[d].count - 1 : 0) * ap.dims[d].stride * es;
      (span < 0 ? l : h) += span;
    }
    if (ap.mem == Memory::HBM) {
      const int64_t span = int64_t(ap.num_partitions ? ap.num_partitions - 1 : 0) * ap.partition_stride * es;
      (span < 0 ? l : h) += span;
    }
    lo = __int128(l) + ap.offset;
    hi = __int128(h) + ap.offset + es;
    return !empty;
  }
  lo = hi = 0;
  for (int d = 0; d < nd; ++d) {
    if (ap.dims[d].count == 0) empty = true;
    const __int128 span = __int128(ap.dims[d].count ? ap.dims[d].count - 1 : 0) * ap.dims[d].stride * es;
    (span < 0 ? lo : hi) += span;
  }
  if (ap.mem == Memory::HBM) {
    const __int128 span = __int128(ap.num_partitions ? ap.num_partitions - 1 : 0) * ap.partition_stride * es;
    (span < 0 ? lo : hi) += span;
  }
  lo += ap.offset;
  hi += ap.offset + es;
  return !empty;
}

// Per-operand result of the validation pass.
struct Checked {
  bool ok = true;
  bool nonempty = false;
  int64_t lo = 0, hi = 0;  // valid when ok && nonempty
};

// Certainly-valid operands (the common case) pass here; anything else goes to ExecContext::check, which
// decides and produces the message.
Checked check_operand(const ExecContext& ctx, const isa::InstrInfo& inf, int s, const isa::AccessPattern& ap) {
  Checked c;
  if (!ap.present()) {
    c.ok = !(s < inf.num_operands && inf.operands[s].required);
    return c;
  }
  if (s >= inf.num_operands || !(isa::memory_bit(ap.mem) & inf.operands[s].memories)) {
    c.ok = false;
    return c;
  }
  __int128 lo, hi;
  if (!extent(ap, lo, hi)) return c;
  const MemorySpace& space = ctx.mem.of(ap.mem);
  c.ok = lo >= 0 && hi <= __int128(space.partition_bytes()) &&
         (ap.mem == Memory::HBM || uint64_t(ap.start_partition) + ap.num_partitions <= space.partitions());
  c.nonempty = true;
  c.lo = int64_t(lo);
  c.hi = int64_t(hi);
  return c;
}

void check_control(const ExecContext& ctx, const isa::InstrInfo& inf, const Instruction& ins) {
  const isa::Program& p = ctx.program;
  for (const isa::SemWait& w : ins.waits)
    if (w.sem >= p.num_semaphores)
      ctx.fail(ins, std::string(inf.mnemonic) + ": waits on semaphore " + std::to_string(w.sem) +
                        " but the program has " + std::to_string(p.num_semaphores));
  for (const isa::SemUpdate& u : ins.updates)
    if (u.sem >= p.num_semaphores)
      ctx.fail(ins, std::string(inf.mnemonic) + ": updates semaphore " + std::to_string(u.sem) +
                        " but the program has " + std::to_string(p.num_semaphores));
  if ((isa::has_trait(ins.op, isa::Trait::DMA) || ins.op == isa::Opcode::sendrecv) &&
      ins.params.dma_queue >= ctx.target.dma_queues)
    ctx.fail(ins, std::string(inf.mnemonic) + ": DMA queue " + std::to_string(ins.params.dma_queue) +
                      " out of range [0, " + std::to_string(int(ctx.target.dma_queues)) + ")");
}

// Validates one instruction; fills `out` with its operands' extents.
const isa::InstrInfo& validate_instruction(const ExecContext& ctx, int e, const Instruction& ins,
                                           std::array<Checked, isa::kMaxOperands>& out) {
  if (size_t(ins.op) >= size_t(isa::kNumOpcodes)) ctx.fail(ins, "invalid opcode " + std::to_string(int(ins.op)));
  const isa::InstrInfo& inf = isa::info(ins.op);
  if (!(inf.engines & isa::engine_bit(Engine(e))))
    ctx.fail(ins, std::string(inf.mnemonic) + ": cannot run on the " + std::string(isa::engine_name(Engine(e))) +
                      " engine");
  // Slots past the row's operands are not part of the instruction (the asm and binary formats cannot
  // even express them): they are ignored, which also spares reading them.
  for (int s = 0; s < inf.num_operands; ++s) {
    out[size_t(s)] = check_operand(ctx, inf, s, ins.operands[s]);
    if (!out[size_t(s)].ok) ctx.check(ins, s, inf.operands[s].written);
  }
  check_control(ctx, inf, ins);
  if (isa::has_trait(ins.op, isa::Trait::SEQUENCER)) check_sequencer(ctx, e, ins);
  if (std::optional<isa::Violation> v = isa::verify(ins, ctx.target)) [[unlikely]]  // the hardware rules
    ctx.fail(ins, v->message);
  return inf;
}

void check_semaphore_count(const isa::Program& p) {
  // Semaphore indices are 16-bit (isa::SemWait); more counters than that cannot be named.
  if (p.num_semaphores > 65536)
    throw Error("program declares " + std::to_string(p.num_semaphores) + " semaphores; at most 65536 can be addressed");
}

}  // namespace

void validate_program(const ExecContext& ctx) {
  check_semaphore_count(ctx.program);
  std::array<Checked, isa::kMaxOperands> checked;
  for (int e = 0; e < isa::kNumEngines; ++e)
    for (const Instruction& ins : ctx.program.streams[size_t(e)]) validate_instruction(ctx, e, ins, checked);
}

namespace detail {

namespace {
struct PrepClock {  // NKISIM_SCHED_TIMING=1: prints the calling thread's CPU time in the preparation
  const char* what;
  timespec t0{};
  explicit PrepClock(const char* w) : what(w) { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0); }
  ~PrepClock() {
    if (!std::getenv("NKISIM_SCHED_TIMING")) return;
    timespec t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    std::fprintf(stderr, "%s %.1f ms (CPU)\n", what, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  }
};
}  // namespace

// Compiles instructions [c * kChunk, (c + 1) * kChunk) of stream e into ops_ and chunks_[e][c].
void Scheduler::prepare_chunk(int e, uint32_t c) {
  const auto& stream = p_.streams[size_t(e)];
  const uint32_t i0 = c << kChunkShift, i1 = std::min<uint32_t>(uint32_t(stream.size()), i0 + kChunk);
  PrepChunk& ch = chunks_[size_t(e)][c];
  ch.sems.reserve(2 * size_t(i1 - i0));
  ch.fps.reserve(e == int(Engine::Tensor) || e == int(Engine::Sync) ? 0 : 3 * size_t(i1 - i0));
  const double banks = std::min(32.0, std::max(1.0, t_.psum_banks));
  const int64_t bank_bytes = int64_t(t_.psum_partition_bytes / banks);
  const bool vs = e == int(Engine::Vector) || e == int(Engine::Scalar);
  std::array<Checked, isa::kMaxOperands> ck;
  // Offsets into the chunk's vectors while they grow; turned into pointers at the end.
  std::vector<std::pair<uint32_t, uint32_t>> at(i1 - i0);
  for (uint32_t i = i0; i < i1; ++i) {
    const Instruction& ins = stream[i];
    // Memory-bound: fetch instructions 16 ahead, and the semaphore lists of those 8 ahead (their headers
    // arrived with the earlier prefetch).
    if (i + 16 < stream.size()) {  // the opcode, the first four operand slots, the parameters and lists
      const char* ahead = reinterpret_cast<const char*>(&stream[i + 16]);
      const size_t ops_end = offsetof(Instruction, operands) + 4 * sizeof(isa::AccessPattern);
      for (size_t b = 0; b < ops_end; b += 64) __builtin_prefetch(ahead + b);
      for (size_t b = offsetof(Instruction, params); b < sizeof(Instruction); b += 64) __builtin_prefetch(ahead + b);
    }
    if (i + 8 < stream.size()) {
      const Instruction& near = stream[i + 8];
      if (!near.waits.empty()) __builtin_prefetch(near.waits.data());
      if (!near.updates.empty()) __builtin_prefetch(near.updates.data());
    }
    const isa::InstrInfo& inf = validate_instruction(ctx_, e, ins, ck);
    OpInfo& op = ops_[gid(e, i)];
    op = OpInfo{};
    op.cost_ns = engine_ns(ins, Engine(e), t_);
    op.cls = isa::has_trait(ins.op, isa::Trait::DMA)         ? OpClass::dma
             : isa::has_trait(ins.op, isa::Trait::SEQUENCER) ? OpClass::sequencer
             : isa::has_trait(ins.op, isa::Trait::CONTROL)   ? OpClass::control
                                                             : OpClass::datapath;
    if (ins.waits.size() > 0xffff || ins.updates.size() > 0xffff)
      ctx_.fail(ins, std::string(inf.mnemonic) + ": more than 65535 semaphore waits or updates");
    at[i - i0].first = uint32_t(ch.sems.size());
    op.nwait = uint16_t(ins.waits.size());
    op.nupd = uint16_t(ins.updates.size());
    for (const isa::SemWait& w : ins.waits) ch.sems.push_back(w);
    for (const isa::SemUpdate& u : ins.updates) ch.sems.push_back(isa::SemWait{u.sem, u.add});
    if (op.cls == OpClass::dma) {
      DmaPlan plan;
      plan.layout = dma_layout(ins, t_);
      plan.queue = ins.params.dma_queue;
      const size_t r0 = ch.rows.size();
      ch.rows.resize(r0 + plan.layout.engines);
      plan.layout.rows_per_engine(ch.rows.data() + r0);
      for (uint32_t d = 0; d < plan.layout.engines; ++d) plan.engines_used += ch.rows[r0 + d] > 0;
      plan.even = plan.engines_used == plan.layout.engines;
      for (uint32_t d = 1; d < plan.layout.engines && plan.even; ++d) plan.even = ch.rows[r0 + d] == ch.rows[r0];
      plan.bytes = plan.layout.row_bytes * plan.layout.rows;
      dma_hbm_bytes(ins, plan.hbm_read, plan.hbm_write);
      plan.dge = dge_mode(ins, t_);
      plan.reg_offset = ins.params.ind_kind == 3;
      plan.reg = ins.params.rs0;
      at[i - i0].second = uint32_t(ch.plans.size());
      ch.plans.push_back(plan);
      continue;
    }
    if (op.cls != OpClass::datapath || e == int(Engine::Sync)) continue;
    if (e == int(Engine::Tensor)) {
      op.role = pe_role(ins.op);
      for (int s = 0; s < inf.num_operands; ++s) {  // the first input: LS stationary, MM moving
        const isa::AccessPattern& in = ins.operands[s];
        if (inf.operands[s].written || !in.present()) continue;
        op.fp8 = is_fp8(in.dtype);
        // MACs = K x M x N; in double-row mode both free sizes count the row pair (K = 2 x partitions). A PE
        // transpose of [P, F] (the data stationary, a P x P identity moving) does P x F x P.
        const double pf = double(in.num_partitions) * double(in.free_elements());
        op.aux = op.role == PeRole::load_stationary ? float(in.free_elements())
                 : op.role == PeRole::multiply_moving ? float(pf / (ins.params.double_row ? 2 : 1))
                                                      : float(pf * double(in.num_partitions));
        break;
      }
      continue;
    }
    // Vector / Scalar / GpSimd: on-chip footprints (reads, then writes), PSUM banks.
    at[i - i0].second = uint32_t(ch.fps.size());
    for (bool written : {false, true})
      for (int s = 0; s < inf.num_operands; ++s) {
        const isa::AccessPattern& ap = ins.operands[s];
        if (inf.operands[s].written != written || (ap.mem != Memory::SBUF && ap.mem != Memory::PSUM)) continue;
        Footprint f;
        f.mem = ap.mem;
        f.p0 = uint16_t(ap.start_partition);
        f.p1 = uint16_t(ap.start_partition + ap.num_partitions);
        if (ck[size_t(s)].nonempty) {
          f.lo = int32_t(ck[size_t(s)].lo);
          f.hi = int32_t(ck[size_t(s)].hi);
        }
        if (ap.dyn.present()) {  // a run-time offset may move it anywhere in its base tensor (sim/dynamic_offset.cpp)
          f.lo = ap.dyn.lo;
          f.hi = ap.dyn.hi;
        }
        ch.fps.push_back(f);
        ++(written ? op.nwrite : op.nread);
        if (vs && ap.mem == Memory::PSUM && f.hi > f.lo && bank_bytes > 0) {
          const int b0 = int(f.lo / bank_bytes), b1 = int(std::min<int64_t>(int64_t(banks) - 1, (f.hi - 1) / bank_bytes));
          for (int b = b0; b <= b1; ++b) op.psum_mask |= 1u << b;
        }
      }
  }
  // The chunk's vectors are final: point into them.
  size_t rows_at = 0;
  for (DmaPlan& plan : ch.plans) {
    plan.rows = ch.rows.data() + rows_at;
    rows_at += plan.layout.engines;
  }
  for (uint32_t i = i0; i < i1; ++i) {
    OpInfo& op = ops_[gid(e, i)];
    op.sems = ch.sems.data() + at[i - i0].first;
    if (op.cls == OpClass::dma) op.plan = ch.plans.data() + at[i - i0].second;
    else if (op.role == PeRole::none && (op.nread || op.nwrite)) op.fps = ch.fps.data() + at[i - i0].second;
  }
}

// Small programs are compiled before the run. Big ones are compiled by a worker thread, the chunk of the stream
// whose compiled lead over the event loop is smallest first, and by the event loop itself when it reaches a
// chunk not compiled yet (it takes that chunk if nobody has, else helps with the next one rather than wait).
void Scheduler::start_prepare() {
  check_semaphore_count(p_);
  // One big array, written once per instruction: transparent huge pages spare ~10K page faults per 1M
  // instructions (Linux; elsewhere plain memory).
  const size_t bytes = std::max<size_t>(1, p_.num_instructions()) * sizeof(OpInfo);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (bytes >= (size_t(4) << 20)) madvise(mem, bytes, MADV_HUGEPAGE);
#endif
  ops_ = std::unique_ptr<OpInfo[], OpsUnmap>(static_cast<OpInfo*>(mem), OpsUnmap{bytes});
  for (int e = 0; e < isa::kNumEngines; ++e)
    chunks_[size_t(e)].resize((p_.streams[size_t(e)].size() + kChunk - 1) / kChunk);
  const bool threaded = o_.parallel && p_.num_instructions() >= 16 * kChunk && std::thread::hardware_concurrency() > 1;
  if (!threaded) {
    const PrepClock clock("preparation (serial)");
    for (int e = 0; e < isa::kNumEngines; ++e)
      for (uint32_t c = 0; c < chunks_[size_t(e)].size(); ++c) prepare_chunk(e, c);
    for (int e = 0; e < isa::kNumEngines; ++e) ready_seen_[size_t(e)] = uint32_t(p_.streams[size_t(e)].size());
    return;
  }
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const size_t n = chunks_[size_t(e)].size();
    chunk_done_[size_t(e)] = std::make_unique<std::atomic<uint8_t>[]>(n);
    for (size_t c = 0; c < n; ++c) chunk_done_[size_t(e)][c].store(0, std::memory_order_relaxed);
  }
  prep_thread_ = std::thread([this] {
#ifdef __linux__
    pthread_setname_np(pthread_self(), "nkisim-prepare");
#endif
    prepare_worker();
  });
}

// Claims the next chunk of stream `only` (or, with -1, of the stream whose compiled lead over the event loop is
// smallest) and compiles it; false when there is none left to claim.
bool Scheduler::prepare_next(int only) {
  for (;;) {
    int best = -1;
    int64_t lead = 0;
    for (int e = 0; e < isa::kNumEngines; ++e) {
      if (only >= 0 && e != only) continue;
      const uint32_t c = claimed_[size_t(e)].load(std::memory_order_relaxed);
      if (c >= chunks_[size_t(e)].size()) continue;
      const int64_t l = int64_t(c) * kChunk - pc_pub_[size_t(e)].load(std::memory_order_relaxed);
      if (best < 0 || l < lead) best = e, lead = l;
    }
    if (best < 0) return false;
    const uint32_t c = claimed_[size_t(best)].fetch_add(1, std::memory_order_relaxed);
    if (c >= chunks_[size_t(best)].size()) continue;  // the other thread took the last one
    prepare_chunk(best, c);
    chunk_done_[size_t(best)][c].store(1, std::memory_order_release);
    return true;
  }
}

void Scheduler::prepare_worker() {
  const PrepClock clock("preparation worker");
  try {
    while (!prep_stop_.load(std::memory_order_relaxed) && !prep_failed_.load(std::memory_order_relaxed) &&
           prepare_next()) {
    }
  } catch (...) {
    prep_error_ = std::current_exception();
    prep_failed_.store(true, std::memory_order_release);
  }
}

// The event loop reached instruction i of stream e beyond the compiled prefix.
void Scheduler::wait_ready(int e, uint32_t i) {
  const uint32_t c = i >> kChunkShift, nc = uint32_t(chunks_[size_t(e)].size());
  for (;;) {
    if (prep_failed_.load(std::memory_order_acquire)) throw_validation_error();
    if (chunk_done_[size_t(e)][c].load(std::memory_order_acquire)) {
      uint32_t k = ready_seen_[size_t(e)] >> kChunkShift;  // extend the prefix (a forward branch may skip chunks)
      while (k < nc && chunk_done_[size_t(e)][k].load(std::memory_order_acquire)) ++k;
      ready_seen_[size_t(e)] = std::min<uint32_t>(uint32_t(p_.streams[size_t(e)].size()), k << kChunkShift);
      return;
    }
    try {
      // This stream's next unclaimed chunk (chunk c or one before it), else any other, rather than wait.
      if (claimed_[size_t(e)].load(std::memory_order_relaxed) <= c ? prepare_next(e) : prepare_next()) continue;
    } catch (...) {
      loop_prep_error_ = std::current_exception();
      prep_failed_.store(true, std::memory_order_release);
      throw_validation_error();
    }
    std::this_thread::yield();  // the worker is compiling the last chunks
  }
}

void Scheduler::finish_prepare() {
  if (prep_thread_.joinable()) prep_thread_.join();
  if (prep_failed_.load(std::memory_order_acquire)) throw_validation_error();
}

// The program is invalid: report the error validate_program() reports (the first in stream order).
void Scheduler::throw_validation_error() {
  if (prep_thread_.joinable()) prep_thread_.join();
  validate_program(ctx_);
  if (prep_error_) std::rethrow_exception(prep_error_);
  if (loop_prep_error_) std::rethrow_exception(loop_prep_error_);
  throw Error("internal error: program preparation failed but validation passed");
}

void OpsUnmap::operator()(OpInfo* p) const {
  if (p) munmap(p, bytes);
}

Scheduler::~Scheduler() {
  prep_stop_.store(true, std::memory_order_relaxed);
  if (prep_thread_.joinable()) prep_thread_.join();
}

}  // namespace detail
}  // namespace nkisim::sim
