// timing_test_util.h - helpers for the timing tests: run a hand-built program on a target with a
// timeline, read instruction times, build Tensor Engine and DMA instructions.
#pragma once
#include <vector>

#include "sim_test_util.h"

namespace ttest {
using namespace simtest;

inline const char* const kTargets[] = {"trn1", "trn2", "trn3"};

inline isa::TargetDesc target(const char* name) { return *isa::find_target(name); }
// The target without the Tensor Engine's dI/dt throttling (on for trn2/trn3): the closed forms of the PE costs
// are its unthrottled costs; throttling has tests of its own (test_timing_pe.cpp).
inline isa::TargetDesc unthrottled(const char* name) {
  auto t = target(name);
  t.pe_throttle = 0;
  return t;
}

// A timing-only run with a timeline (and optionally a trace); no input data is needed.
inline sim::Result timed(const isa::Program& p, const isa::TargetDesc& t, bool trace = false) {
  sim::Options o;
  o.target = t;
  o.timeline = true;
  o.trace = trace;
  o.timing_only = true;
  return sim::simulate(p, std::vector<sim::HostArray>{}, o);
}

inline const sim::InstrTiming& rec(const sim::Result& r, Engine e, uint32_t i) {
  return r.timeline[r.instr_base[size_t(e)] + i];
}
inline double dur(const sim::InstrTiming& x) { return x.end_ns - x.start_ns; }
// `cycles` of engine e's clock in ns.
inline double cyc(double cycles, Engine e, const isa::TargetDesc& t) { return cycles / t.engine_ghz(e); }

// The duration of `ins` run alone on engine e.
inline double alone(const isa::TargetDesc& t, Engine e, isa::Instruction ins) {
  Builder b;
  b.add(e, std::move(ins));
  return dur(rec(timed(b.p, t), e, 0));
}

// Tensor Engine instructions (rows of isa/instructions.def): stationary [K, M] at SBUF byte `off`;
// multiply moving [K, N] (SBUF byte `off`) into PSUM [M, N] at byte `psum_off`.
inline isa::Instruction load_stationary(DType dt, uint32_t k, uint32_t m, int64_t off = 0) {
  return make(Opcode::load_stationary, {sbuf(dt, 0, k, off, m)});
}
inline isa::Instruction multiply_moving(DType dt, uint32_t k, uint32_t m, uint32_t n, int64_t off = 65536,
                                        int64_t psum_off = 0) {
  return make(Opcode::multiply_moving, {psum(DType::float32, 0, m, psum_off, n), sbuf(dt, 0, k, off, n)});
}

// dma_copy of an HBM tensor [P, F] (fp32) into SBUF partitions [p0, p0+P) at byte `off`.
inline isa::Instruction dma_load(Builder& b, uint32_t p0, uint32_t P, uint32_t F, int64_t off = 0, uint16_t queue = 0) {
  size_t id = b.input("x", DType::float32, {P, F});
  auto ins = make(Opcode::dma_copy, {sbuf(DType::float32, p0, P, off, F), b.whole(id)});
  ins.params.dma_queue = queue;
  return ins;
}

}  // namespace ttest
