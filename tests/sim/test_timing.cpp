// test_timing.cpp - closed-form checks of the first timing model (costs, overlap, semaphores, DMA).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sim_test_util.h"

using namespace simtest;
using isa::AluOp;

namespace {
sim::Result run(const isa::Program& p) { return sim::simulate(p, std::vector<sim::HostArray>{}); }

isa::Instruction tt(DType t, uint32_t n, isa::Memory m2 = isa::Memory::SBUF, AluOp op = AluOp::add) {
  auto ins = make(Opcode::tensor_tensor, {sbuf(t, 0, 128, 0, n), sbuf(t, 0, 128, 65536, n),
                                          onchip(m2, t, 0, 128, m2 == isa::Memory::PSUM ? 0 : 131072, {{1, n}})});
  ins.params.op0 = op;
  return ins;
}
}  // namespace

TEST_CASE("trn2 parameters the closed forms below rely on") {
  auto t = trn2();
  CHECK(t.vector_ghz == 0.96);
  CHECK(t.min_ii_cycles == 64);
  CHECK(t.dma_engines == 16);
  CHECK(t.dma_partitions_per_engine == 8);
}

TEST_CASE("tensor_tensor cost: 2N cycles in general, N on the fast paths, MIN_II floor") {
  auto t = trn2();
  Builder b;
  SUBCASE("fp32, N=512, both SBUF: 2N cycles") {
    b.add(Engine::Vector, tt(DType::float32, 512));
    auto r = run(b.p);
    CHECK(r.total_ns == 2 * 512 / 0.96);
    CHECK(r.total_ns == 2 * 512 / t.vector_ghz);
    CHECK(r.engines["vector"].busy_ns == r.total_ns);
    CHECK(r.engines["vector"].instructions == 1);
    CHECK(r.total_cycles == uint64_t(std::llround(r.total_ns * t.sync_ghz)));
  }
  SUBCASE("N=8: the MIN_II floor") {
    b.add(Engine::Vector, tt(DType::float32, 8));
    CHECK(run(b.p).total_ns == 64 / 0.96);
  }
  SUBCASE("all-bf16 add in SBUF with unit stride: N cycles") {
    b.add(Engine::Vector, tt(DType::bfloat16, 512));
    CHECK(run(b.p).total_ns == 512 / 0.96);
  }
  SUBCASE("all-bf16 but maximum: 2N") {
    b.add(Engine::Vector, tt(DType::bfloat16, 512, isa::Memory::SBUF, AluOp::maximum));
    CHECK(run(b.p).total_ns == 1024 / 0.96);
  }
  SUBCASE("one input in PSUM: N cycles") {
    b.add(Engine::Vector, tt(DType::float32, 512, isa::Memory::PSUM));
    CHECK(run(b.p).total_ns == 512 / 0.96);
  }
  SUBCASE("on GpSimd the GpSimd clock applies") {
    b.add(Engine::GpSimd, tt(DType::float32, 300));
    CHECK(run(b.p).total_ns == 600 / t.gpsimd_ghz);
  }
}

TEST_CASE("stream cost: max(MIN_II, N) of the main input, or of dst when there is no input") {
  auto t = trn2();
  Builder b;
  SUBCASE("activation N=300 on scalar") {
    b.add(Engine::Scalar, make(Opcode::activation, {sbuf(DType::float32, 0, 128, 0, 300),
                                                    sbuf(DType::float32, 0, 128, 4096, 300)}));
    CHECK(run(b.p).total_ns == 300 / t.scalar_ghz);
  }
  SUBCASE("memset N=100 (dst only)") {
    b.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 100)}));
    CHECK(run(b.p).total_ns == 100 / t.vector_ghz);
  }
  SUBCASE("tensor_copy N counts the source's elements per partition") {
    b.add(Engine::Vector, make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 16, 0, 40),
                                                     sbuf(DType::float32, 0, 16, 4096, 40)}));
    CHECK(run(b.p).total_ns == 64 / t.vector_ghz);
  }
  SUBCASE("sem_update is a control instruction") {
    auto& u = b.add(Engine::Sync, make(Opcode::sem_update, {}));
    u.updates.push_back({0, 1});
    CHECK(run(b.p).total_ns == t.control_cycles / t.sync_ghz);
  }
}

TEST_CASE("independent instructions on different engines overlap; dependent ones serialise") {
  auto t = trn2();
  const double dv = 2 * 512 / t.vector_ghz, ds = 1000 / t.scalar_ghz;
  auto act = make(Opcode::activation, {sbuf(DType::float32, 0, 128, 200000, 1000),
                                       sbuf(DType::float32, 0, 128, 196608 - 8192, 1000)});
  SUBCASE("independent: total = max") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512));
    b.add(Engine::Scalar, act);
    auto r = run(b.p);
    CHECK(r.total_ns == std::max(dv, ds));
    CHECK(r.engines["vector"].busy_ns == dv);
    CHECK(r.engines["scalar"].busy_ns == ds);
  }
  SUBCASE("scalar waits on a semaphore the vector instruction updates: total = sum") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512)).updates.push_back({3, 1});
    b.add(Engine::Scalar, act).waits.push_back({3, 1});
    CHECK(run(b.p).total_ns == dv + ds);
  }
  SUBCASE("same engine: in order, back to back") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512));
    b.add(Engine::Vector, tt(DType::float32, 100));
    auto r = run(b.p);
    CHECK(r.total_ns == dv + 200 / t.vector_ghz);
    CHECK(r.engines["vector"].instructions == 2);
  }
  SUBCASE("a wait needing two updates") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512)).updates.push_back({0, 1});
    b.add(Engine::GpSimd, tt(DType::float32, 64)).updates.push_back({0, 1});
    b.add(Engine::Scalar, act).waits.push_back({0, 2});
    CHECK(run(b.p).total_ns == std::max(dv, 128 / t.gpsimd_ghz) + ds);
  }
}

TEST_CASE("DMA transfer timing") {
  auto t = trn2();
  const double trigger = t.dma_trigger_cycles / t.sync_ghz;
  // 128 partitions x 2048 B: 8 partitions (16 KiB) per engine, capped by the core's HBM share.
  const double bytes = 128 * 2048.0;
  const double d = std::max(8 * 2048.0 / t.dma_engine_bytes_per_ns, bytes / t.hbm_bytes_per_ns);
  Builder b;
  size_t in = b.input("x", DType::float32, {128, 512});
  auto load = make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 0, 512), b.whole(in)});
  sim::HostArray x = f32_array({128, 512}, std::vector<float>(128 * 512, 1.0f));

  SUBCASE("one 128 x 2048 B load matches trigger + fixed + transfer") {
    b.add(Engine::Sync, load);
    auto r = sim::simulate(b.p, std::vector{x});
    CHECK(r.total_ns == doctest::Approx(trigger + t.dma_fixed_ns + d).epsilon(1e-12));
    CHECK(r.engines["sync"].busy_ns == doctest::Approx(trigger));
    CHECK(r.engines["dma"].busy_ns == doctest::Approx(d));
    CHECK(r.engines["dma"].instructions == 1);
  }
  SUBCASE("two loads on one queue run one after the other (FIFO)") {
    b.add(Engine::Sync, load);
    auto second = load;
    second.operands[0].offset = 4096;
    b.add(Engine::Sync, second);
    auto r = sim::simulate(b.p, std::vector{x});
    CHECK(r.total_ns == doctest::Approx(trigger + 2 * (t.dma_fixed_ns + d)));
    CHECK(r.engines["dma"].instructions == 2);
  }
  SUBCASE("two loads on different queues share the DMA engines") {
    b.add(Engine::Sync, load);
    auto second = load;
    second.operands[0].offset = 4096;
    second.params.dma_queue = 1;
    b.add(Engine::Sync, second);
    auto r = sim::simulate(b.p, std::vector{x});
    // The second transfer reaches its queue head one trigger later but its engines are busy until the
    // first finishes.
    CHECK(r.total_ns == doctest::Approx(trigger + t.dma_fixed_ns + 2 * d));
    CHECK(r.engines["dma"].busy_ns == doctest::Approx(2 * d));
  }
  SUBCASE("16 partitions use two engines; the per-engine rate bounds the time") {
    Builder b2;
    size_t in2 = b2.input("x", DType::float32, {16, 512});
    b2.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 32, 16, 0, 512), b2.whole(in2)}));
    auto r = sim::simulate(b2.p, std::vector{f32_array({16, 512}, std::vector<float>(16 * 512, 2.0f))});
    double d2 = std::max(8 * 2048.0 / t.dma_engine_bytes_per_ns, 16 * 2048.0 / t.hbm_bytes_per_ns);
    CHECK(r.total_ns == doctest::Approx(trigger + t.dma_fixed_ns + d2));
  }
  SUBCASE("a DMA's semaphore update fires when the transfer completes") {
    b.add(Engine::Sync, load).updates.push_back({0, 1});
    b.add(Engine::Vector, tt(DType::float32, 512)).waits.push_back({0, 1});
    auto r = sim::simulate(b.p, std::vector{x});
    CHECK(r.total_ns == doctest::Approx(trigger + t.dma_fixed_ns + d + 1024 / t.vector_ghz));
  }
  SUBCASE("a trigger from the scalar engine uses the scalar clock") {
    b.add(Engine::Scalar, load);
    auto r = sim::simulate(b.p, std::vector{x});
    CHECK(r.total_ns == doctest::Approx(t.dma_trigger_cycles / t.scalar_ghz + t.dma_fixed_ns + d));
    CHECK(r.engines["scalar"].instructions == 1);
  }
}

TEST_CASE("target parameters drive the timing (no numbers in the model)") {
  auto t = trn2();
  t.vector_ghz = 2.0;
  t.min_ii_cycles = 10;
  Builder b;
  b.add(Engine::Vector, tt(DType::float32, 8));
  sim::Options o;
  o.target = t;
  CHECK(sim::simulate(b.p, std::vector<sim::HostArray>{}, o).total_ns == 16 / 2.0);
}
