// test_timing_pe.cpp - Tensor Engine scheduling (machine.md §4, nki-isa.md §3.1, docs/cost-model.md):
// back-to-back MultiplyMoving initiation intervals, background LoadStationary, PE transposes, in-order
// retirement, the throttling ramp, MFU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "timing_test_util.h"

using namespace ttest;

namespace {
double ii(const sim::Result& r, uint32_t a, uint32_t b) {
  return rec(r, Engine::Tensor, b).start_ns - rec(r, Engine::Tensor, a).start_ns;
}
double ls_cycles(const isa::TargetDesc& t, double m, bool fp32 = false) {
  return std::ceil(std::max(t.mm_init_cycles, m) / t.ls_speedup) * (fp32 ? t.pe_fp32_factor : 1);
}
double mm_cycles(const isa::TargetDesc& t, double m, double n, bool fp32 = false) {
  return std::max(std::min(t.mm_init_cycles, m), n) * (fp32 ? t.pe_fp32_factor : 1);
}
// (LS, MM) x count with a fresh stationary each time.
isa::Program pairs(DType sd, uint32_t m, DType md, uint32_t n, int count) {
  Builder b;
  for (int i = 0; i < count; ++i) {
    b.add(Engine::Tensor, load_stationary(sd, 128, m, (i % 2) * 4096));
    b.add(Engine::Tensor, multiply_moving(md, 128, m, n, 65536, (i % 8) * 2048));
  }
  return b.p;
}
}  // namespace

TEST_CASE("back-to-back multiplies with a resident stationary: II = max(min(64, M), N), x4 for FP32") {
  for (const char* tn : kTargets) {
    const auto t = unthrottled(tn);
    for (uint32_t m : {1u, 32u, 128u})
      for (uint32_t n : {1u, 32u, 64u, 100u, 512u})
        for (bool fp32 : {false, true}) {
          CAPTURE(tn);
          CAPTURE(m);
          CAPTURE(n);
          CAPTURE(fp32);
          const DType dt = fp32 ? DType::float32 : DType::bfloat16;
          Builder b;
          b.add(Engine::Tensor, load_stationary(dt, 128, m));
          for (int i = 0; i < 4; ++i) b.add(Engine::Tensor, multiply_moving(dt, 128, m, n, 65536, i * 2048));
          auto r = timed(b.p, t);
          const double mm = cyc(mm_cycles(t, m, n, fp32), Engine::Tensor, t);
          CHECK(dur(rec(r, Engine::Tensor, 0)) == doctest::Approx(cyc(ls_cycles(t, m, fp32), Engine::Tensor, t)));
          CHECK(rec(r, Engine::Tensor, 1).start_ns == doctest::Approx(rec(r, Engine::Tensor, 0).end_ns));
          CHECK(rec(r, Engine::Tensor, 1).cause == sim::StallCause::weights);
          for (uint32_t i = 2; i <= 4; ++i) CHECK(ii(r, i - 1, i) == doctest::Approx(mm));
          CHECK(r.total_ns == doctest::Approx(rec(r, Engine::Tensor, 4).end_ns));
        }
  }
}

TEST_CASE("background LoadStationary: a pair costs max(LS, MM), without it LS + MM") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    auto t = unthrottled(tn);
    struct Case {
      DType sd;
      uint32_t m;
      DType md;
      uint32_t n;
    };
    for (Case c : {Case{DType::bfloat16, 128, DType::bfloat16, 512}, Case{DType::bfloat16, 128, DType::bfloat16, 1},
                   Case{DType::float32, 128, DType::bfloat16, 8}, Case{DType::bfloat16, 1, DType::bfloat16, 128}}) {
      CAPTURE(c.m);
      CAPTURE(c.n);
      const double ls = cyc(ls_cycles(t, c.m, c.sd == DType::float32), Engine::Tensor, t);
      const double mm = cyc(mm_cycles(t, c.m, c.n, c.md == DType::float32), Engine::Tensor, t);
      auto p = pairs(c.sd, c.m, c.md, c.n, 8);
      auto r = timed(p, t);
      for (uint32_t i = 5; i < 16; i += 2) CHECK(ii(r, i - 2, i) == doctest::Approx(std::max(ls, mm)));
      auto serial = t;
      serial.pe_background_ls = 0;
      auto rs = timed(p, serial);
      for (uint32_t i = 5; i < 16; i += 2) CHECK(ii(rs, i - 2, i) == doctest::Approx(ls + mm));
    }
  }
}

TEST_CASE("background LoadStationary: effects retire in program order, LS slices on their own track") {
  const auto t = unthrottled("trn2");
  auto r = timed(pairs(DType::bfloat16, 128, DType::bfloat16, 512, 3), t, true);
  // LS #2 ends during MM #1 but retires after it.
  CHECK(rec(r, Engine::Tensor, 2).end_ns < rec(r, Engine::Tensor, 1).end_ns);
  CHECK(rec(r, Engine::Tensor, 2).retire_ns == rec(r, Engine::Tensor, 1).retire_ns);
  CHECK(rec(r, Engine::Tensor, 2).start_ns == rec(r, Engine::Tensor, 1).start_ns);
  CHECK(rec(r, Engine::Tensor, 2).cause == sim::StallCause::none);  // in-order issue: right at MM #1's start
  int ls = 0, mm = 0;
  for (auto& e : r.trace) {
    ls += e.track == "tensor.ls";
    mm += e.track == "tensor";
    if (e.track == "tensor.ls") CHECK(e.name == "load_stationary");
  }
  CHECK(ls == 3);
  CHECK(mm == 3);
  // The Tensor Engine's busy time is the union of its intervals.
  CHECK(r.engines["tensor"].busy_ns == doctest::Approx(r.total_ns));
}

TEST_CASE("Tensor active time: a multiply's drain (pe_drain_ns) counts, hidden back to back, cut at the run's end") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = unthrottled(tn);
    const double ls = cyc(ls_cycles(t, 128), Engine::Tensor, t), mm = cyc(mm_cycles(t, 128, 512), Engine::Tensor, t);
    // A long Vector memset keeps the run going past the drain.
    auto program = [&](int multiplies) {
      Builder b;
      b.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 131072, 8192)}));
      b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, 128));
      for (int i = 0; i < multiplies; ++i) b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512, 65536, i * 2048));
      return b.p;
    };
    for (int n : {1, 4}) {
      auto r = timed(program(n), t);
      REQUIRE(r.total_ns > ls + n * mm + t.pe_drain_ns);
      CHECK(r.engines["tensor"].busy_ns == doctest::Approx(ls + n * mm + t.pe_drain_ns));  // one drain: the last
    }
    // Alone, the run ends with the last multiply: its drain is cut there.
    Builder b;
    b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, 128));
    b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512));
    auto r = timed(b.p, t);
    CHECK(r.total_ns == doctest::Approx(ls + mm));
    CHECK(r.engines["tensor"].busy_ns == doctest::Approx(r.total_ns));
  }
}

TEST_CASE("PE transposes back to back: max(P, min(64, F)), x PE_FP32_T for 4-byte dtypes") {
  for (const char* tn : kTargets) {
    const auto t = unthrottled(tn);
    for (uint32_t P : {16u, 64u, 128u})
      for (uint32_t F : {8u, 32u, 128u})
        for (DType dt : {DType::bfloat16, DType::float32}) {
          CAPTURE(tn);
          CAPTURE(P);
          CAPTURE(F);
          Builder b;
          for (int i = 0; i < 3; ++i)
            b.add(Engine::Tensor, make(Opcode::nc_transpose_pe, {psum(dt, 0, F, i * 2048, P), sbuf(dt, 0, P, 0, F)}));
          auto r = timed(b.p, t);
          const double c = std::max<double>(P, std::min<double>(64, F)) * (dt == DType::float32 ? t.pe_fp32_transpose_factor : 1);
          CHECK(ii(r, 0, 1) == doctest::Approx(cyc(c, Engine::Tensor, t)));
          CHECK(ii(r, 1, 2) == doctest::Approx(cyc(c, Engine::Tensor, t)));
        }
  }
}

TEST_CASE("throttling ramp (on for Trn2/Trn3, none on Trn1): 50% of peak, +50% over 3 us, re-engages after idling") {
  auto t = target("trn2");
  Builder b;
  b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, 128));
  for (int i = 0; i < 40; ++i) b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512, 65536, (i % 8) * 2048));
  // After a long idle gap (a semaphore wait on a long Vector instruction), the limit re-engages.
  auto& v = b.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 131072, 16000)}));
  v.updates.push_back({0, 1});
  auto& late = b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512));
  late.waits.push_back({0, 1});
  const double base = cyc(512, Engine::Tensor, t);
  // Off (trn1, or --param pe_throttle=0): every multiply takes its base cost.
  CHECK(target("trn1").pe_throttle == 0);
  CHECK(target("trn3").pe_throttle == 1);
  auto t0 = t;
  t0.pe_throttle = 0;
  auto r0 = timed(b.p, t0);
  CHECK(dur(rec(r0, Engine::Tensor, 1)) == doctest::Approx(base));
  CHECK(r0.pe_average_throttle == 1);
  REQUIRE(t.pe_throttle == 1);
  auto r = timed(b.p, t);
  const double t1 = rec(r, Engine::Tensor, 1).start_ns;
  CHECK(dur(rec(r, Engine::Tensor, 1)) == doctest::Approx(base / 0.5));
  CHECK(rec(r, Engine::Tensor, 1).throttle == 0.5);
  const auto& m2 = rec(r, Engine::Tensor, 2);
  CHECK(m2.throttle == doctest::Approx(0.5 + 0.5 * (m2.start_ns - t1) / 3000));
  CHECK(dur(m2) == doctest::Approx(base / m2.throttle));
  const auto& m40 = rec(r, Engine::Tensor, 40);
  CHECK(m40.start_ns - t1 > 3000);
  CHECK(m40.throttle == 1);
  CHECK(dur(m40) == doctest::Approx(base));
  const auto& lt = rec(r, Engine::Tensor, 41);
  CHECK(lt.start_ns - m40.end_ns > 3000);
  CHECK(lt.throttle == 0.5);
  CHECK(r.pe_average_throttle < 1);
  CHECK(r.pe_average_throttle > 0.5);
}

TEST_CASE("throttling caps FLOP utilisation: fp32, 64-row and short multiplies are not slowed; 96 rows are, by u / L") {
  const auto t = target("trn2");
  // Each case: one LS, then one multiply started at limit 0.5 (the first of the run); its utilisation u is
  // K x M x N / (128 x 128 x cycles), and it lasts cost x max(1, u / 0.5).
  struct Case {
    DType dt;
    uint32_t k, m, n;
    double u;
  };
  for (Case c : {Case{DType::float32, 128, 128, 512, 0.25}, Case{DType::bfloat16, 64, 128, 512, 0.5},
                 Case{DType::bfloat16, 128, 64, 512, 0.5}, Case{DType::bfloat16, 128, 128, 32, 0.25},
                 Case{DType::bfloat16, 96, 128, 512, 0.75}, Case{DType::bfloat16, 128, 128, 512, 1.0}}) {
    CAPTURE(c.k);
    CAPTURE(c.m);
    CAPTURE(c.n);
    Builder b;
    b.add(Engine::Tensor, load_stationary(c.dt, c.k, c.m));
    b.add(Engine::Tensor, multiply_moving(c.dt, c.k, c.m, c.n));
    const double base = cyc((c.dt == DType::float32 ? 4 : 1) * std::max<double>(std::min<double>(64, c.m), c.n),
                            Engine::Tensor, t);
    auto r = timed(b.p, t);
    const auto& mm = rec(r, Engine::Tensor, 1);
    CHECK(mm.throttle == 0.5);
    CHECK(dur(mm) == doctest::Approx(base * std::max(1.0, c.u / 0.5)));
  }
  // A PE transpose of [128, 128] bf16 uses the whole array (u = 1): twice its cost at 0.5; of [128, 32], u = 0.25.
  for (uint32_t f : {128u, 32u}) {
    Builder b;
    b.add(Engine::Tensor, make(Opcode::nc_transpose_pe, {psum(DType::bfloat16, 0, f, 0, 128), sbuf(DType::bfloat16, 0, 128, 0, f)}));
    auto r = timed(b.p, t);
    CHECK(dur(rec(r, Engine::Tensor, 0)) == doctest::Approx(cyc(128, Engine::Tensor, t) * (f == 128 ? 2 : 1)));
  }
  // 6 us of fp32 multiplies (u = 0.25 < 50%) keep the limit engaged: the bf16 multiply after them starts at 0.5.
  Builder b;
  b.add(Engine::Tensor, load_stationary(DType::float32, 128, 128));
  const double fp32_ns = cyc(4 * 512, Engine::Tensor, t);
  const int n32 = int(6000 / fp32_ns) + 1;
  for (int i = 0; i < n32; ++i) b.add(Engine::Tensor, multiply_moving(DType::float32, 128, 128, 512, 65536, (i % 8) * 2048));
  b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, 128));
  b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512));
  auto r = timed(b.p, t);
  for (int i = 1; i <= n32; ++i) CHECK(dur(rec(r, Engine::Tensor, uint32_t(i))) == doctest::Approx(fp32_ns));
  const auto& last = rec(r, Engine::Tensor, uint32_t(n32 + 2));
  CHECK(last.start_ns > 6000);
  CHECK(last.throttle == 0.5);
  CHECK(dur(last) == doctest::Approx(2 * cyc(512, Engine::Tensor, t)));
}

TEST_CASE("MFU: 2 x MACs / (2 x PE count x tensor clock x total time)") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = unthrottled(tn);
    Builder b;
    b.add(Engine::Tensor, load_stationary(DType::bfloat16, 128, 128));
    for (int i = 0; i < 16; ++i) b.add(Engine::Tensor, multiply_moving(DType::bfloat16, 128, 128, 512, 65536, (i % 8) * 2048));
    auto r = timed(b.p, t);
    const double macs = 16.0 * 128 * 128 * 512;
    CHECK(r.pe_macs == macs);
    CHECK(r.mfu_estimated_percent == doctest::Approx(100 * macs / (128.0 * 128 * t.tensor_ghz * r.total_ns)));
    // 16 full-rate multiplies after one LS: close to 100%.
    CHECK(r.mfu_estimated_percent > 95);
    // FP8 x FP8 work counts half (profiler adjusted_flops).
    Builder f;
    f.add(Engine::Tensor, load_stationary(DType::float8_e4m3, 128, 128));
    f.add(Engine::Tensor, multiply_moving(DType::float8_e4m3, 128, 128, 512));
    CHECK(timed(f.p, t).pe_macs == 128.0 * 128 * 512 / 2);
  }
}

TEST_CASE("FP8 double-row: a K=256 multiply takes a K=128 pass, MFU counts FP8 x FP8 work half") {
  for (const char* tn : {"trn2", "trn3"}) {
    CAPTURE(tn);
    const auto t = unthrottled(tn);
    Builder b;
    auto ls = make(Opcode::load_stationary, {onchip(isa::Memory::SBUF, DType::float8_e4m3, 0, 128, 0, {{128, 2}, {1, 128}})});
    ls.params.double_row = true;
    b.add(Engine::Tensor, ls);
    for (int i = 0; i < 3; ++i) {
      auto mm = make(Opcode::multiply_moving, {psum(DType::float32, 0, 128, i * 2048, 512),
                                               onchip(isa::Memory::SBUF, DType::float8_e4m3, 0, 128, 65536, {{512, 2}, {1, 512}})});
      mm.params.double_row = true;
      b.add(Engine::Tensor, mm);
    }
    auto r = timed(b.p, t);
    CHECK(ii(r, 1, 2) == doctest::Approx(cyc(512, Engine::Tensor, t)));  // as a bf16 K=128 [128x128]x[128x512]
    CHECK(dur(rec(r, Engine::Tensor, 0)) == doctest::Approx(cyc(32, Engine::Tensor, t)));
    // 3 x (K=256) x 128 x 512 MACs, FP8 x FP8 halved.
    CHECK(r.pe_macs == 3.0 * 256 * 128 * 512 / 2);
  }
}
