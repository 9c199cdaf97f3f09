// test_lnc_sendrecv.cpp - LNC=2 sendrecv (sim/exec_sendrecv.cpp, docs/lnc.md): closed-form timing of an
// exchange, the data each core receives, and the single-core error.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim_test_util.h"

using namespace simtest;

namespace {
// src: 128 x 512 fp32 at byte 0 of each partition, dst: the same shape at byte 4096.
isa::Instruction sendrecv(uint16_t sem, int32_t n) {
  isa::Instruction s = make(Opcode::sendrecv, {sbuf(DType::float32, 0, 128, 4096, 512), sbuf(DType::float32, 0, 128, 0, 512)});
  s.params.sem = sem;
  s.params.rimm = n;
  return s;
}
}  // namespace

TEST_CASE("sendrecv: done core_barrier_ns after the later core is ready, plus one DMA transfer") {
  const isa::TargetDesc t = *isa::find_target("trn2");
  // One transfer of 128 partitions x 2048 bytes: 16 engines x 8 partitions each, one buffer per row.
  const double rows = 128.0 / t.dma_engines;
  const double transfer = t.dma_fixed_ns + rows * t.dma_buffer_overhead_ns + rows * 2048 / t.dma_engine_bytes_per_ns;
  std::vector<isa::Program> ps(2);
  for (int c = 0; c < 2; ++c) {
    Builder b;
    isa::Instruction m = make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)});
    m.params.imm0 = float(c + 1);  // core c sends c + 1; core 1's memset is on GpSimd, ahead of its sendrecv
    if (c == 0) m.updates.push_back({1, 1});
    b.add(c == 1 ? Engine::GpSimd : Engine::Vector, m);
    isa::Instruction s = sendrecv(0, 1);
    if (c == 0) s.waits.push_back({1, 1});
    b.add(Engine::GpSimd, s);
    ps[size_t(c)] = b.p;
  }
  Builder alone;
  alone.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  const double memset_g = sim::simulate(alone.p, {}).engines["gpsimd"].busy_ns;
  Builder alone_v;
  alone_v.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  const double memset_v = sim::simulate(alone_v.p, {}).engines["vector"].busy_ns;
  REQUIRE(memset_g > 0);
  REQUIRE(memset_v > 0);
  sim::LncResult r = sim::simulate_lnc(ps, {});
  // Core 0 is ready after its Vector memset (semaphore), core 1 after its GpSimd memset; each receives the
  // other's signal core_barrier_ns after the other was ready, then moves the data.
  CHECK(r.cores[0].total_ns == doctest::Approx(std::max(memset_v, memset_g + t.core_barrier_ns) + transfer).epsilon(1e-12));
  CHECK(r.cores[1].total_ns == doctest::Approx(std::max(memset_g, memset_v + t.core_barrier_ns) + transfer).epsilon(1e-12));
}

TEST_CASE("sendrecv: in a single-core run it is an error") {
  Builder b;
  isa::Instruction& s = b.add(Engine::GpSimd, sendrecv(0, 1));
  s.loc = b.loc("k.py", 4, 5);
  try {
    sim::simulate(b.p, {});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "sendrecv: needs an LNC=2 run (--lnc 2)");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 4);
  }
}
