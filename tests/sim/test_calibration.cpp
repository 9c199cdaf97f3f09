// test_calibration.cpp - the published measured points of ../shared/spec/machine.md reproduce within 10%:
//   1. Trn2: a single-engine 32 KiB DMA transfer moves in 1416 ns, i.e. 23.1 GB/s (machine.md §11).
//   2. Trn1: a chain of dependent one-element ScalarE instructions has an II of ~189 ns = 264 ACT cycles
//      (machine.md §9, PERF Opt #5a).
//   3. Trn1: matrix-vector products on the PE (machine.md §4, PERF worked example): with the short operand
//      as moving, LS_II ~ 32 cycles hides behind MM_II ~ 64 cycles -> one MM per ~64 cycles; with the short
//      operand as stationary, one MM per ~128 cycles.
// The simulated figures are printed (doctest -s) and quoted in docs/cost-model.md.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "timing_test_util.h"

using namespace ttest;

namespace {
void report(const char* what, double sim, double published) {
  std::printf("calibration: %-58s simulated %9.2f ns, published %9.2f ns (%+.1f%%)\n", what, sim, published,
              100 * (sim - published) / published);
  CHECK(std::abs(sim - published) <= 0.10 * published);
}
}  // namespace

TEST_CASE("calibration: Trn2 32 KiB single-engine DMA transfer (1416 ns)") {
  const auto t = target("trn2");
  // The default split gives one engine 8 partitions: 8 x 4 KiB = 32 KiB on engine 0.
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 8, 1024));
  auto r = timed(b.p, t);
  REQUIRE(r.transfers.size() == 1);
  CHECK(r.transfers[0].engines == 1);
  report("trn2 32 KiB on one DMA engine (8 x 4 KiB buffers)", r.transfers[0].done_ns - r.transfers[0].start_ns, 1416);
  // One contiguous 32 KiB buffer.
  Builder c;
  c.add(Engine::Sync, dma_load(c, 0, 1, 8192));
  auto rc = timed(c.p, t);
  report("trn2 32 KiB on one DMA engine (1 buffer)", rc.transfers[0].done_ns - rc.transfers[0].start_ns, 1416);
}

TEST_CASE("calibration: Trn1 chain of dependent one-element Scalar instructions (189 ns)") {
  const auto t = target("trn1");
  Builder b;
  const int n = 20;
  for (int i = 0; i < n; ++i) {
    auto act = make(Opcode::activation, {sbuf(DType::float32, 0, 128, 4 * (i + 1), 1), sbuf(DType::float32, 0, 128, 4 * i, 1)});
    act.params.func = isa::ActFunc::exp;
    b.add(Engine::Scalar, act);
  }
  auto r = timed(b.p, t);
  const double interval = (rec(r, Engine::Scalar, n - 1).start_ns - rec(r, Engine::Scalar, 0).start_ns) / (n - 1);
  report("trn1 dependent 1-element activation chain, II", interval, 189);
  // Independent tiny instructions run at the MIN_II floor instead.
  Builder f;
  for (int i = 0; i < n; ++i)
    f.add(Engine::Scalar, make(Opcode::activation, {sbuf(DType::float32, 0, 128, 4 * (i + 1), 1), sbuf(DType::float32, 0, 128, 0, 1)}));
  auto rf = timed(f.p, t);
  CHECK(rec(rf, Engine::Scalar, 1).start_ns == doctest::Approx(64 / t.scalar_ghz));
}

TEST_CASE("calibration: Trn1 matrix-vector initiation intervals (64 and 128 PE cycles)") {
  const auto t = target("trn1");
  auto period = [&](uint32_t m, uint32_t n) {
    Builder b;
    const int pairs = 16;
    for (int i = 0; i < pairs; ++i) {
      b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, m, (i % 2) * 4096));
      b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, m, n, 65536, (i % 8) * 2048));
    }
    auto r = timed(b.p, t);
    return (rec(r, Engine::Tensor, 2 * pairs - 1).start_ns - rec(r, Engine::Tensor, 3).start_ns) / (pairs - 2);
  };
  // Short operand as moving: stationary [128, 128], moving [128, 1].
  report("trn1 mat-vec, vector as moving: one MM per 64 cycles", period(128, 1), 64 / t.tensor_ghz);
  // Short operand as stationary: stationary [128, 1], moving [128, 128].
  report("trn1 mat-vec, vector as stationary: one MM per 128 cycles", period(1, 128), 128 / t.tensor_ghz);
}
