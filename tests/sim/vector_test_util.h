// vector_test_util.h - a one-kernel harness for the Vector/Scalar/GpSimd instruction tests: load inputs into
// SBUF tiles, run instructions in program order on their engines, store chosen tiles, run the simulator.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "sim_test_util.h"

namespace vectest {
using namespace simtest;
using isa::AluOp;
using isa::ReduceCmd;

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Instructions run one after another: each waits for every load and for the previous compute
// instruction (semaphore 2 counts them), so engines may be mixed freely.
struct Kernel {
  Builder b;
  std::vector<sim::HostArray> inputs;
  std::vector<std::pair<AccessPattern, size_t>> stores;
  uint32_t loads = 0, computes = 0;
  int64_t next = 0;  // next free SBUF byte offset (per partition)
  std::string target = "trn2";

  // A fresh SBUF tile [P, F] of dtype t (64-byte aligned, never reused).
  AccessPattern tile(DType t, uint32_t P, uint32_t F, uint32_t p0 = 0) {
    AccessPattern ap = sbuf(t, p0, P, next, F);
    next += (int64_t(F) * isa::dtype_size(t) + 63) / 64 * 64;
    return ap;
  }
  AccessPattern psum_tile(DType t, uint32_t P, uint32_t F) {
    AccessPattern ap = psum(t, 0, P, psum_next, F);
    psum_next += (int64_t(F) * isa::dtype_size(t) + 63) / 64 * 64;
    return ap;
  }
  // An input [P, F] DMA'd into a fresh tile (at partitions p0..).
  AccessPattern input(const sim::HostArray& a, uint32_t P, uint32_t F, uint32_t p0 = 0) {
    AccessPattern t = tile(a.dtype, P, F, p0);
    size_t id = b.input(("in" + std::to_string(loads)).c_str(), a.dtype, {P, F});
    names.push_back("in" + std::to_string(loads));
    AccessPattern dst = t;
    auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {dst, b.whole(id)}));
    ins.updates.push_back({0, 1});
    ++loads;
    inputs.push_back(a);
    return t;
  }
  AccessPattern f32_in(const std::vector<float>& v, uint32_t P, uint32_t F, uint32_t p0 = 0) {
    return input(f32_array({P, F}, v), P, F, p0);
  }
  template <class T>
  AccessPattern raw_in(DType t, const std::vector<T>& v, uint32_t P, uint32_t F, uint32_t p0 = 0) {
    return input(raw_array(t, {P, F}, v), P, F, p0);
  }
  isa::Instruction& op(Engine e, isa::Instruction ins) {
    ins.waits.push_back({0, loads});
    if (computes) ins.waits.push_back({2, computes});
    ins.updates.push_back({2, 1});
    ++computes;
    return b.add(e, std::move(ins));
  }
  isa::Instruction& op(Engine e, Opcode o, std::initializer_list<AccessPattern> operands) {
    return op(e, make(o, operands));
  }
  void out(const AccessPattern& t) {
    size_t id = b.output(("out" + std::to_string(stores.size())).c_str(), t.dtype,
                         {t.num_partitions, int64_t(t.free_elements())});
    stores.emplace_back(t, id);
  }
  sim::Result run() {
    b.p.target = target;
    for (auto& [t, id] : stores) {
      auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(id), t}));
      ins.waits.push_back({2, computes});
    }
    stores.clear();
    return sim::simulate(b.p, inputs, {});
  }
  // Runs and returns the error message ("" when it ran).
  std::string error() {
    try {
      run();
    } catch (nkisim::Error& e) {
      return e.what();
    }
    return "";
  }

 private:
  int64_t psum_next = 0;
  std::vector<std::string> names;  // keeps tensor names alive (HbmTensor copies them anyway)
};

inline std::vector<float> f32_out(const sim::Result& r, size_t k) { return values<float>(r.outputs.at(k)); }

// Same float, NaN equal to NaN, -0 distinct from +0.
inline bool same(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Deterministic pseudo-random floats in [lo, hi) (xorshift; independent of the code under test).
inline std::vector<float> noise(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    x = lo + (hi - lo) * float(s >> 8) / float(1u << 24);
  }
  return v;
}

// a * b rounded to fp32 on its own (the build may contract a*b+c into an fma; the simulator never does).
inline float mul_rounded(float a, float b) {
  volatile float r = a * b;
  return r;
}

// Reference fold for add/multiply/maximum/minimum (NaN propagates through maximum/minimum as in numpy).
inline float sim_ref_fold(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::add: return a + b;
    case AluOp::multiply: return a * b;
    case AluOp::maximum: return std::isnan(a) || std::isnan(b) ? kNaN : (a > b ? a : b);
    case AluOp::minimum: return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? a : b);
    default: FAIL("no reference for this op"); return 0;
  }
}

}  // namespace vectest
