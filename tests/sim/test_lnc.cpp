// test_lnc.cpp - two cores in one timeline (sim/machine.cpp): core_barrier's closed-form timing, shared
// HBM, and the mismatched-barrier error.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim_test_util.h"

using namespace simtest;

namespace {
isa::Instruction barrier(uint16_t sem, int32_t n) {
  isa::Instruction b = make(Opcode::core_barrier, {sbuf(DType::float32, 0, 1, 4096, 1)});  // data: ordering only
  b.params.sem = sem;
  b.params.rimm = n;
  return b;
}
}  // namespace

TEST_CASE("core_barrier: each core waits for the other's signal, core_barrier_ns after it was sent") {
  const isa::TargetDesc t = *isa::find_target("trn2");
  const double ctl_g = t.control_cycles / t.gpsimd_ghz;
  // Core 1 first spends a memset on GpSimd; core 0 reaches its barrier at once.
  std::vector<isa::Program> ps(2);
  for (int c = 0; c < 2; ++c) {
    Builder b;
    if (c == 1) b.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
    b.add(Engine::GpSimd, barrier(0, 1));
    ps[size_t(c)] = b.p;
  }
  Builder alone;  // core 1's memset alone (the barrier issues when it ends)
  alone.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  sim::Result one = sim::simulate(alone.p, {});
  const double memset_ns = one.engines["gpsimd"].busy_ns;
  REQUIRE(memset_ns > 0);
  sim::RunResult r = sim::simulate(ps, {});
  REQUIRE(r.cores.size() == 2);
  // Core 0 is released when core 1's signal (sent at memset_ns) arrives; core 1 by core 0's (sent at 0).
  CHECK(r.cores[0].total_ns == doctest::Approx(memset_ns + t.core_barrier_ns + ctl_g).epsilon(1e-12));
  CHECK(r.cores[1].total_ns == doctest::Approx(std::max(memset_ns, t.core_barrier_ns) + ctl_g).epsilon(1e-12));
  CHECK(r.total_ns == r.cores[0].total_ns);
}

TEST_CASE("LNC: the cores share HBM; a barrier orders core 0's store before core 1's load") {
  // Core 0 stores 5.0 into HBM tensor `x` then barriers; core 1 barriers then copies x to the output.
  std::vector<isa::Program> ps(2);
  for (int c = 0; c < 2; ++c) {
    Builder b;
    size_t x = b.tensor("x", isa::HbmTensor::Kind::Internal, DType::float32, {1, 4});
    size_t out = b.output("out", DType::float32, {1, 4});
    AccessPattern tile = sbuf(DType::float32, 0, 1, 0, 4);
    if (c == 0) {
      isa::Instruction m = make(Opcode::memset, {tile});
      m.params.imm0 = 5.0f;
      m.updates.push_back({1, 1});
      b.add(Engine::Vector, m);
      isa::Instruction st = make(Opcode::dma_copy, {b.whole(x), tile});
      st.waits.push_back({1, 1});
      st.updates.push_back({2, 1});
      b.add(Engine::Sync, st);
      isa::Instruction w = barrier(0, 1);
      w.waits.push_back({2, 1});
      b.add(Engine::GpSimd, w);
    } else {
      isa::Instruction w = barrier(0, 1);
      w.updates.push_back({1, 1});
      b.add(Engine::GpSimd, w);
      isa::Instruction ld = make(Opcode::dma_copy, {b.whole(out), b.whole(x)});
      ld.waits.push_back({1, 1});
      b.add(Engine::Sync, ld);
    }
    ps[size_t(c)] = b.p;
  }
  ps[0].hbm_tensors[1].output_index = 0;  // both programs declare the same HBM tensors
  sim::RunResult r = sim::simulate(ps, {});
  REQUIRE(r.outputs.size() == 1);
  float v[4];
  std::memcpy(v, r.outputs[0].data.data(), 16);
  for (float f : v) CHECK(f == 5.0f);
}

TEST_CASE("LNC: a barrier only one core reaches is a located error; a single-core barrier too") {
  std::vector<isa::Program> ps(2);
  Builder b0;
  isa::Instruction& w = b0.add(Engine::GpSimd, barrier(0, 1));
  w.loc = b0.loc("k.py", 9, 9);
  ps[0] = b0.p;
  ps[1] = Builder().p;
  try {
    sim::simulate(ps, {});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "core_barrier: core 0 reaches 1 core_barrier(s) on gpsimd but core 1 reaches 0 "
                                   "(every core must reach the same barriers)");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 9);
  }
  try {
    sim::simulate(ps[0], {});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "core_barrier: needs an LNC=2 run (--lnc 2)");
  }
  sim::Options functional;  // one core is the same machine in both modes: the same error
  functional.functional = true;
  try {
    sim::simulate(ps[0], {}, functional);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "core_barrier: needs an LNC=2 run (--lnc 2)");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 9);
  }
  sim::Options trn1;
  trn1.target = *isa::find_target("trn1");
  ps[1] = ps[0];
  CHECK_THROWS_WITH(sim::simulate(ps, {}, trn1), "LNC=2: trn1 supports only LNC=1");
}
