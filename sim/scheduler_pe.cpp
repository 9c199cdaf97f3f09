// scheduler_pe.cpp - cross-instruction timing on the compute engines (docs/cost-model.md):
// * Tensor Engine: LoadStationary and MultiplyMoving use separate paths. With pe_background_ls the next
//   LoadStationary loads into the background weight buffer while the current multiply runs; a multiply
//   waits for its weights; an LS waits until the multiply that took the previous weights has started
//   (machine.md §4, ARCH2 + PERF Opt #7). Optional dI/dt throttling ramp (machine.md §4, NX).
// * Same-engine RAW latency: an instruction reading what an earlier instruction of the same engine wrote
//   waits until that result is committed: producer end + the engine's hand-off (vector_raw_handoff_cycles,
//   scalar_raw_handoff_cycles; GpSimd: dep_static_cycles + access_overhead_cycles for the write to land, +
//   access_overhead_cycles for the consumer's read request that could not be issued ahead) (machine.md §2
//   PERF Opt #5a, §6, §9 ARCH2; isa/target.cpp has the measurements). A Vector instruction released by a
//   semaphore update waits the same hand-off after it (semaphore_handoff).
// * PSUM banks: Vector and Scalar accesses to the same PSUM bank serialise (NC-v3+); on NC-v2 any two
//   Vector/Scalar PSUM accesses do (machine.md §10).
#include <algorithm>
#include <cstring>

#include "sim/scheduler_impl.h"

namespace nkisim::sim::detail {
using isa::Engine;
using isa::Instruction;

PeRole pe_role(isa::Opcode op) {
  return isa::has_trait(op, isa::Trait::PE_LOAD)    ? PeRole::load_stationary
         : isa::has_trait(op, isa::Trait::PE_MOVE)  ? PeRole::multiply_moving
         : isa::has_trait(op, isa::Trait::PE_ARRAY) ? PeRole::other
                                                    : PeRole::none;
}

Footprint footprint(const isa::AccessPattern& ap) {
  Footprint f;
  f.mem = ap.mem;
  f.p0 = uint16_t(ap.start_partition);
  f.p1 = uint16_t(ap.start_partition + ap.num_partitions);
  const int64_t es = isa::dtype_size(ap.dtype);
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < ap.num_dims; ++d) {
    if (ap.dims[d].count == 0) return Footprint{};
    const int64_t span = ap.dims[d].stride * int64_t(ap.dims[d].count - 1);
    if (span < 0) lo += span;
    else hi += span;
  }
  f.lo = int32_t(ap.offset + lo * es);
  f.hi = int32_t(ap.offset + (hi + 1) * es);
  return f;
}

// ---- same-engine RAW latency -------------------------------------------------------------------------

void Scheduler::hazard_constraint(int e, const OpInfo& op, StartCalc& c) const {
  const auto& ring = writes_[size_t(e)];
  bool pending = false;
  for (const WriteRec& w : ring) pending = pending || w.ready > c.t;
  if (!pending) return;
  for (uint32_t k = 0; k < op.nread; ++k)
    for (const WriteRec& w : ring)
      if (w.ready > c.t && overlaps(op.fps[k], w.fp)) c.raise(w.ready, StallCause::dependency, TimingRef{TimingRef::Instr, w.gid});
}

// A Vector instruction a semaphore held (the engine was ready before the releasing update at now_): its read
// request could not be issued ahead either, so it starts a hand-off after the update, as after a same-engine
// producer; the engine holds it meanwhile (active time). The matmul tutorial's M,N,K profile (SDK
// nki/img/how-to/v5-zoom.png) draws such a tensor_tensor at 0.69 us for 512 cycles (0.533 us) of streaming.
void Scheduler::semaphore_handoff(int e, StartCalc& c) const {
  if (e == int(Engine::Vector) && handoff_on_[size_t(e)]) c.t = std::max(c.t, now_ + handoff_ns_[size_t(e)]);
}

// The hand-off latency of a result to a dependent instruction on engine e (hazard_record), computed once.
void Scheduler::init_handoff() {
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const double ghz = t_.engine_ghz(Engine(e));
    handoff_on_[size_t(e)] = !(ghz <= 0);  // as the test was before (a NaN clock records)
    if (ghz <= 0) continue;
    const double handoff = e == int(Engine::Vector)   ? t_.vector_raw_handoff_cycles
                           : e == int(Engine::Scalar) ? t_.scalar_raw_handoff_cycles
                                                      : t_.dep_static_cycles + 2 * t_.access_overhead_cycles;
    handoff_ns_[size_t(e)] = handoff / ghz;
  }
}

void Scheduler::hazard_record(int e, const OpInfo& op, double end, uint32_t id) {
  if (!op.nwrite || !handoff_on_[size_t(e)]) return;
  const double ready = end + handoff_ns_[size_t(e)];
  for (uint32_t k = op.nread; k < uint32_t(op.nread) + op.nwrite; ++k) {
    WriteRec& w = writes_[size_t(e)][write_head_[size_t(e)]++ % kRing];
    w.fp = op.fps[k];
    w.ready = ready;
    w.gid = id;
  }
}

// ---- PSUM bank arbitration ----------------------------------------------------------------------------

namespace {
int vs_slot(int e) { return e == int(Engine::Vector) ? 0 : 1; }
}  // namespace

void Scheduler::psum_constraint(int e, const OpInfo& op, StartCalc& c) const {
  const uint32_t mask = op.psum_mask;
  const int other = 1 - vs_slot(e);
  // NC-v2: VectorE and ScalarE cannot access PSUM at the same time (any bank).
  const uint32_t check = ctx_.target.nc_version <= 2 ? 0xffffffffu : mask;
  for (int b = 0; b < 32; ++b)
    if (check & (1u << b)) c.raise(psum_busy_[size_t(b)][size_t(other)], StallCause::psum_bank, psum_user_[size_t(b)][size_t(other)]);
}

void Scheduler::psum_record(int e, const OpInfo& op, double end, uint32_t id) {
  const uint32_t mask = op.psum_mask;
  const int me = vs_slot(e);
  for (int b = 0; b < 32; ++b)
    if (mask & (1u << b)) {
      psum_busy_[size_t(b)][size_t(me)] = end;
      psum_user_[size_t(b)][size_t(me)] = TimingRef{TimingRef::Instr, id};
    }
}

// ---- Tensor Engine --------------------------------------------------------------------------------------

// Path availability (the engine is busy, cause "engine"): LS needs the load path (and, without
// background loading, the multiply path); MM the multiply path; other instructions the whole array.
void Scheduler::pe_constraint(PeRole role, StartCalc& c) const {
  switch (role) {
    case PeRole::load_stationary:
      if (pe_load_free_ > c.t) { c.t = pe_load_free_; c.pred = pe_last_ls_; }
      if (t_.pe_background_ls == 0 && pe_mul_free_ > c.t) { c.t = pe_mul_free_; c.pred = pe_last_mul_; }
      break;
    case PeRole::multiply_moving:
      if (pe_mul_free_ > c.t) { c.t = pe_mul_free_; c.pred = pe_last_mul_; }
      break;
    case PeRole::other:
      if (pe_load_free_ > c.t) { c.t = pe_load_free_; c.pred = pe_last_ls_; }
      if (pe_mul_free_ > c.t) { c.t = pe_mul_free_; c.pred = pe_last_mul_; }
      break;
    case PeRole::none: break;
  }
}

// Throttling level at time t (machine.md §4: starts at ~50% of peak, ramps to 100% over ~3 us, re-engages
// when utilisation over a ~3 us window falls below 50%). The level caps the Tensor Engine's FLOP utilisation, so
// the window counts FLOP-weighted busy time. The window ending at t is the least utilised of those ending since
// the previous multiply, so checking it at each multiply suffices.
double Scheduler::throttle_level(double t) {
  if (t_.pe_throttle == 0) return 1;
  const double w = t_.pe_throttle_window_ns;
  while (!pe_hist_.empty() && pe_hist_.front().end <= t - w) {
    pe_hist_busy_ -= (pe_hist_.front().end - pe_hist_.front().start) * pe_hist_.front().density;
    pe_hist_.pop_front();
  }
  double busy = pe_hist_busy_;
  if (!pe_hist_.empty() && pe_hist_.front().start < t - w)
    busy -= ((t - w) - pe_hist_.front().start) * pe_hist_.front().density;
  if (pe_throttle_origin_ < 0) pe_throttle_origin_ = t;
  else if (t - pe_throttle_origin_ >= w && busy < t_.pe_throttle_threshold * w) pe_throttle_origin_ = t;
  const double ramp = t_.pe_throttle_ramp_ns;
  const double s0 = std::clamp(t_.pe_throttle_start, 0.01, 1.0);
  if (ramp <= 0) return 1;
  return std::min(1.0, s0 + (1.0 - s0) * (t - pe_throttle_origin_) / ramp);
}

// The FLOP utilisation an instruction of the PE array runs at unthrottled: its MACs over what the array does in
// its cost at the BF16-adjusted peak (FP8 x FP8 counts half, as the profiler's adjusted FLOPs). A quarter-rate fp32
// multiply or one using half the rows draws less than the limit allows and is not slowed (the matmul tutorial's
// fp32 steps keep their Tensor active time under a throttled track; docs/cost-model.md, "Throttling").
double Scheduler::pe_utilisation(const OpInfo& op) const {
  const double peak = t_.pe_rows * t_.pe_cols * t_.tensor_ghz * op.cost_ns;
  return peak > 0 ? std::clamp(adjusted_macs(op) / peak, 0.0, 1.0) : 1.0;
}

// The MACs an instruction of the PE array does, BF16-adjusted: K x M x N for a multiply (FP8 x FP8 counts half,
// the profiler's adjusted FLOPs, machine.md §13), P x F x P for a PE transpose.
double Scheduler::adjusted_macs(const OpInfo& op) const {
  return op.role == PeRole::multiply_moving ? double(op.aux) * pe_stationary_m_ * (stationary_fp8_ && op.fp8 ? 0.5 : 1.0)
                                            : double(op.aux);
}

double Scheduler::pe_started(const OpInfo& op, double start, uint32_t id, double& level) {
  const TimingRef me{TimingRef::Instr, id};
  level = 1;
  if (op.role == PeRole::load_stationary) {
    const double end = start + op.cost_ns;
    pe_load_free_ = end;
    pe_weights_ready_ = end;
    pe_weights_pending_ = true;
    pe_last_ls_ = me;
    pe_stationary_m_ = double(op.aux);
    stationary_fp8_ = op.fp8;
    return op.cost_ns;
  }
  level = throttle_level(start);
  const double u = t_.pe_throttle != 0 ? pe_utilisation(op) : 1.0;
  const double dur = u > level ? op.cost_ns * u / level : op.cost_ns;
  const double end = start + dur;
  if (t_.pe_throttle != 0 && dur > 0) {
    pe_hist_.push_back({start, end, u * op.cost_ns / dur});
    pe_hist_busy_ += u * op.cost_ns;
  }
  pe_thr_weighted_ += level * dur;
  pe_thr_time_ += dur;
  if (op.role == PeRole::multiply_moving) {
    if (pe_weights_pending_) {
      pe_weights_pending_ = false;
      pe_shadow_free_ = start;  // the weights moved into the array: the background buffer is free
    }
    pe_mul_free_ = end;
    pe_last_mul_ = me;
    r_.pe_macs += adjusted_macs(op);  // for MFU
  } else {
    pe_load_free_ = pe_mul_free_ = pe_shadow_free_ = end;
    pe_last_ls_ = pe_last_mul_ = me;
  }
  return dur;
}

}  // namespace nkisim::sim::detail
