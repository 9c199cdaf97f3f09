// test_timing.cpp - closed-form timing of the Vector / Scalar / GpSimd cost classes on every target, the
// same-engine dependent latency, engine overlap, semaphores and PSUM bank arbitration. Formulas:
// machine.md §3, §6-§10 and nki-isa.md §3 as implemented in isa/cost.cpp (docs/cost-model.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "timing_test_util.h"

using namespace ttest;
using isa::AluOp;
using isa::Memory;

namespace {
isa::Instruction tt(DType t, uint32_t n, Memory m2 = Memory::SBUF, AluOp op = AluOp::add) {
  auto ins = make(Opcode::tensor_tensor, {sbuf(t, 0, 128, 0, n), sbuf(t, 0, 128, 65536, n),
                                          onchip(m2, t, 0, 128, m2 == Memory::PSUM ? 0 : 131072, {{1, n}})});
  ins.params.op0 = op;
  return ins;
}
// tensor_copy dst <- src with element stride `stride` on the source.
isa::Instruction copy(DType dt, DType st, uint32_t n, Memory sm = Memory::SBUF, int64_t stride = 1) {
  return make(Opcode::tensor_copy, {sbuf(dt, 0, 128, 0, n), onchip(sm, st, 0, 128, sm == Memory::PSUM ? 0 : 65536,
                                                                   {{stride, n}})});
}
double mx(double a, double b) { return std::max(a, b); }
}  // namespace

TEST_CASE("tensor_tensor: 2N in general, N on the fast paths, MIN_II floor, GpSimd start-up (every target)") {
  for (const char* tn : kTargets) {
    const auto t = target(tn);
    const bool v3 = t.vector_perf_mode != 0;
    for (uint32_t n : {8u, 32u, 64u, 100u, 512u, 2048u}) {
      CAPTURE(tn);
      CAPTURE(n);
      const double N = n;
      CHECK(alone(t, Engine::Vector, tt(DType::float32, n)) == doctest::Approx(cyc(mx(64, 2 * N), Engine::Vector, t)));
      // all-bf16 add in SBUF, unit stride: N (ISA-OLD); NC-v3+ 2x mode for any op on 16-bit SBUF inputs.
      CHECK(alone(t, Engine::Vector, tt(DType::bfloat16, n)) == doctest::Approx(cyc(mx(64, N), Engine::Vector, t)));
      CHECK(alone(t, Engine::Vector, tt(DType::bfloat16, n, Memory::SBUF, AluOp::maximum)) ==
            doctest::Approx(cyc(mx(64, v3 ? N : 2 * N), Engine::Vector, t)));
      CHECK(alone(t, Engine::Vector, tt(DType::float16, n)) ==
            doctest::Approx(cyc(mx(64, v3 ? N : 2 * N), Engine::Vector, t)));
      CHECK(alone(t, Engine::Vector, tt(DType::float32, n, Memory::PSUM)) ==
            doctest::Approx(cyc(mx(64, N), Engine::Vector, t)));
      CHECK(alone(t, Engine::GpSimd, tt(DType::float32, n)) == doctest::Approx(cyc(150 + 2 * N, Engine::GpSimd, t)));
    }
  }
}

TEST_CASE("tensor_copy / tensor_scalar: N, the NC-v3+ Vector 2x/4x modes, the NC-v4 Scalar 2x mode") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    const bool v3 = t.nc_version >= 3, v4 = t.nc_version >= 4;
    const double N = 1024;
    auto V = [&](double c) { return doctest::Approx(cyc(mx(64, c), Engine::Vector, t)); };
    CHECK(alone(t, Engine::Vector, copy(DType::float32, DType::float32, 1024)) == V(N));
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::bfloat16, 1024)) == V(v3 ? N / 4 : N));
    CHECK(alone(t, Engine::Vector, copy(DType::float16, DType::bfloat16, 1024)) == V(v3 ? N / 4 : N));
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::float32, 1024)) == V(N));
    // One side in PSUM, or a non-contiguous inner dim: 2x.
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::bfloat16, 512, Memory::PSUM)) == V(v3 ? 256 : 512));
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::bfloat16, 1024, Memory::SBUF, 2)) == V(v3 ? N / 2 : N));
    // FP8 joins the fast modes on NC-v4 only.
    CHECK(alone(t, Engine::Vector, copy(DType::float8_e4m3, DType::float8_e4m3, 1024)) == V(v4 ? N / 4 : v3 ? N / 2 : N));
    // NC-v3: FP8 with a 16-bit partner at the "256 other dtypes" rate (vector_fp8_factor); FP32 stays 1x.
    CHECK(alone(t, Engine::Vector, copy(DType::float8_e4m3, DType::bfloat16, 1024)) == V(v4 ? N / 4 : v3 ? N / 2 : N));
    CHECK(alone(t, Engine::Vector, copy(DType::float8_e4m3, DType::float32, 1024)) == V(N));
    // The floor still applies after the speed-up.
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::bfloat16, 128)) == V(v3 ? 64 : 128));
    // tensor_scalar takes the same modes.
    auto ts = make(Opcode::tensor_scalar, {sbuf(DType::bfloat16, 0, 128, 0, 1024), sbuf(DType::bfloat16, 0, 128, 65536, 1024)});
    ts.params.op0 = AluOp::multiply;
    CHECK(alone(t, Engine::Vector, ts) == V(v3 ? N / 4 : N));
    // Scalar: 2x for 16-bit/FP8 operands on NC-v4; no Vector modes on the Scalar engine.
    auto S = [&](double c) { return doctest::Approx(cyc(mx(64, c), Engine::Scalar, t)); };
    if (t.nc_version >= 3) {  // NeuronCore-v2 has no tensor_copy on the Scalar Engine (isa/verify_copy.cpp)
      CHECK(alone(t, Engine::Scalar, copy(DType::bfloat16, DType::bfloat16, 1024)) == S(v4 ? N / 2 : N));
      CHECK(alone(t, Engine::Scalar, copy(DType::float32, DType::float32, 1024)) == S(N));
    }
    auto act = make(Opcode::activation, {sbuf(DType::bfloat16, 0, 128, 0, 1024), sbuf(DType::bfloat16, 0, 128, 65536, 1024)});
    act.params.func = isa::ActFunc::exp;
    CHECK(alone(t, Engine::Scalar, act) == S(v4 ? N / 2 : N));
    act.operands[0].dtype = DType::float32;
    CHECK(alone(t, Engine::Scalar, act) == S(N));
    // GpSimd: start-up + N, no modes.
    CHECK(alone(t, Engine::GpSimd, copy(DType::bfloat16, DType::bfloat16, 1024)) ==
          doctest::Approx(cyc(150 + N, Engine::GpSimd, t)));
  }
}

TEST_CASE("stride penalty: an innermost stride above 16 bytes doubles the streaming time") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    auto V = [&](double c) { return doctest::Approx(cyc(mx(64, c), Engine::Vector, t)); };
    CHECK(alone(t, Engine::Vector, copy(DType::float32, DType::float32, 512, Memory::SBUF, 4)) == V(512));  // 16 B
    CHECK(alone(t, Engine::Vector, copy(DType::float32, DType::float32, 512, Memory::SBUF, 8)) == V(1024));  // 32 B
    CHECK(alone(t, Engine::Vector, copy(DType::float32, DType::float32, 16, Memory::SBUF, 8)) == V(64));  // floor
    // 16-bit with a 32 B stride: 2x mode (non-contiguous) on NC-v3+, then the penalty.
    CHECK(alone(t, Engine::Vector, copy(DType::bfloat16, DType::bfloat16, 512, Memory::SBUF, 16)) ==
          V(t.nc_version >= 3 ? 512 : 1024));
    auto no = t;
    no.stride_penalty_factor = 1;
    CHECK(alone(no, Engine::Vector, copy(DType::float32, DType::float32, 512, Memory::SBUF, 8)) == V(512));
  }
}

TEST_CASE("memset: N/2 for zero into 16-bit on Vector, partitions below 128 cost the same") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    auto ms = [](DType dt, float v, uint32_t np = 128) {
      auto ins = make(Opcode::memset, {sbuf(dt, 0, np, 0, 1000)});
      ins.params.imm0 = v;
      return ins;
    };
    CHECK(alone(t, Engine::Vector, ms(DType::bfloat16, 0)) == doctest::Approx(cyc(500, Engine::Vector, t)));
    CHECK(alone(t, Engine::Vector, ms(DType::float16, 0)) == doctest::Approx(cyc(500, Engine::Vector, t)));
    CHECK(alone(t, Engine::Vector, ms(DType::bfloat16, 1)) == doctest::Approx(cyc(1000, Engine::Vector, t)));
    CHECK(alone(t, Engine::Vector, ms(DType::float32, 0)) == doctest::Approx(cyc(1000, Engine::Vector, t)));
    CHECK(alone(t, Engine::Vector, ms(DType::float32, 0, 32)) == doctest::Approx(cyc(1000, Engine::Vector, t)));
    CHECK(alone(t, Engine::GpSimd, ms(DType::bfloat16, 0)) == doctest::Approx(cyc(1150, Engine::GpSimd, t)));
    auto u = make(Opcode::sem_update, {});
    u.updates.push_back({0, 1});
    CHECK(alone(t, Engine::Sync, u) == doctest::Approx(cyc(t.control_cycles, Engine::Sync, t)));
  }
}

TEST_CASE("back-to-back dependent instructions on one engine wait for the result to be committed") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    // The Vector hand-off (128 cycles, from the fused Mamba profiles) and the Scalar one (200: the measured
    // dependent ACT chain, 264 - MIN_II), isa/target.cpp.
    const double extra = cyc(t.vector_raw_handoff_cycles, Engine::Vector, t);
    CHECK(extra == doctest::Approx(cyc(128, Engine::Vector, t)));
    auto cp = [](int64_t dst, int64_t src) {
      return make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, dst, 512), sbuf(DType::float32, 0, 128, src, 512)});
    };
    Builder b;
    b.add(Engine::Vector, cp(8192, 0));       // A: writes 8192
    b.add(Engine::Vector, cp(16384, 8192));   // B reads A: waits for A's commit
    b.add(Engine::Vector, cp(24576, 0));      // C independent: back to back
    b.add(Engine::Vector, cp(32768, 16384));  // D reads B, which ended one instruction earlier
    auto r = timed(b.p, t);
    const double d = cyc(512, Engine::Vector, t);
    CHECK(rec(r, Engine::Vector, 0).start_ns == 0);
    CHECK(rec(r, Engine::Vector, 1).start_ns == doctest::Approx(d + extra));
    CHECK(rec(r, Engine::Vector, 1).cause == sim::StallCause::dependency);
    CHECK(rec(r, Engine::Vector, 1).pred == sim::TimingRef{sim::TimingRef::Instr, r.instr_base[1] + 0});
    CHECK(rec(r, Engine::Vector, 2).start_ns == doctest::Approx(2 * d + extra));
    CHECK(rec(r, Engine::Vector, 2).cause == sim::StallCause::none);
    CHECK(rec(r, Engine::Vector, 3).start_ns == doctest::Approx(mx(3 * d + extra, 2 * d + extra + extra)));
    // Partial overlaps count: a read of a different partition range does not.
    Builder b2;
    auto act_copy = [](uint32_t p0, int64_t dst, int64_t src) {  // the Scalar Engine's copy on every generation
      auto a = make(Opcode::activation, {sbuf(DType::float32, p0, 64, dst, 100), sbuf(DType::float32, p0, 64, src, 100)});
      a.params.func = isa::ActFunc::copy;
      return a;
    };
    b2.add(Engine::Scalar, act_copy(0, 0, 4096));
    b2.add(Engine::Scalar, act_copy(64, 8192, 0));
    b2.add(Engine::Scalar, act_copy(0, 8192, 200));
    auto r2 = timed(b2.p, t);
    const double ds = cyc(100, Engine::Scalar, t);
    CHECK(rec(r2, Engine::Scalar, 1).start_ns == doctest::Approx(ds));
    CHECK(rec(r2, Engine::Scalar, 2).start_ns ==
          doctest::Approx(ds + cyc(200, Engine::Scalar, t)));
  }
}

TEST_CASE("a Vector instruction a semaphore held starts a hand-off after the update, active meanwhile") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    const double ds = cyc(1000, Engine::Scalar, t), dv = cyc(512, Engine::Vector, t);
    const double handoff = cyc(t.vector_raw_handoff_cycles, Engine::Vector, t);
    auto act = make(Opcode::activation, {sbuf(DType::float32, 0, 128, 0, 1000), sbuf(DType::float32, 0, 128, 8192, 1000)});
    auto cp = [](int64_t dst, int64_t src) {
      return make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, dst, 512), sbuf(DType::float32, 0, 128, src, 512)});
    };
    Builder b;
    b.add(Engine::Scalar, act).updates.push_back({0, 1});
    b.add(Engine::Vector, cp(16384, 0)).waits.push_back({0, 1});  // held until the Scalar update at ds
    b.add(Engine::Vector, cp(24576, 0)).waits.push_back({0, 1});  // its wait already holds: back to back
    auto r = timed(b.p, t);
    CHECK(rec(r, Engine::Vector, 0).start_ns == doctest::Approx(ds + handoff));
    CHECK(rec(r, Engine::Vector, 0).cause == sim::StallCause::semaphore);
    CHECK(rec(r, Engine::Vector, 1).start_ns == doctest::Approx(ds + handoff + dv));
    CHECK(r.engines["vector"].busy_ns == doctest::Approx(handoff + 2 * dv));
    // Scalar keeps starting at the update (its hand-off is measured on same-engine chains only).
    Builder b2;
    b2.add(Engine::Vector, cp(16384, 0)).updates.push_back({0, 1});
    b2.add(Engine::Scalar, act).waits.push_back({0, 1});
    CHECK(rec(timed(b2.p, t), Engine::Scalar, 0).start_ns == doctest::Approx(dv));
  }
}

TEST_CASE("independent engines overlap, semaphores serialise dependent instructions") {
  const auto t = target("trn2");
  const double dv = cyc(1024, Engine::Vector, t), ds = cyc(1000, Engine::Scalar, t);
  auto act = make(Opcode::activation, {sbuf(DType::float32, 0, 128, 200000, 1000), sbuf(DType::float32, 0, 128, 180000, 1000)});
  SUBCASE("independent: total = max") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512));
    b.add(Engine::Scalar, act);
    auto r = timed(b.p, t);
    CHECK(r.total_ns == doctest::Approx(std::max(dv, ds)));
    CHECK(r.engines["vector"].busy_ns == doctest::Approx(dv));
    CHECK(r.engines["scalar"].busy_ns == doctest::Approx(ds));
    CHECK(r.engines["scalar"].instructions == 1);
  }
  SUBCASE("scalar waits on a semaphore the vector instruction updates: total = sum") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512)).updates.push_back({3, 1});
    b.add(Engine::Scalar, act).waits.push_back({3, 1});
    auto r = timed(b.p, t);
    CHECK(r.total_ns == doctest::Approx(dv + ds));
    CHECK(rec(r, Engine::Scalar, 0).cause == sim::StallCause::semaphore);
    CHECK(rec(r, Engine::Scalar, 0).sem == 3);
    CHECK(rec(r, Engine::Scalar, 0).pred == sim::TimingRef{sim::TimingRef::Instr, r.instr_base[1]});
    REQUIRE(r.sem_edges.size() == 1);
    CHECK(r.sem_edges[0].first == r.instr_base[2]);
  }
  SUBCASE("a wait needing two updates") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512)).updates.push_back({0, 1});
    b.add(Engine::GpSimd, tt(DType::float32, 64)).updates.push_back({0, 1});
    b.add(Engine::Scalar, act).waits.push_back({0, 2});
    CHECK(timed(b.p, t).total_ns == doctest::Approx(std::max(dv, cyc(150 + 128, Engine::GpSimd, t)) + ds));
  }
  SUBCASE("the same engine runs in order, back to back") {
    Builder b;
    b.add(Engine::Vector, tt(DType::float32, 512));
    b.add(Engine::Vector, tt(DType::float32, 100));
    CHECK(timed(b.p, t).total_ns == doctest::Approx(dv + cyc(200, Engine::Vector, t)));
  }
}

TEST_CASE("PSUM: Vector and Scalar accesses to the same bank serialise (NC-v2: any bank)") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    auto vread = make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, 0, 512), psum(DType::float32, 0, 128, 0, 512)});
    auto sread = [](int64_t bank) {
      return make(Opcode::activation, {sbuf(DType::float32, 0, 128, 65536, 512), psum(DType::float32, 0, 128, bank * 2048, 512)});
    };
    const double dv = cyc(512, Engine::Vector, t);
    Builder same;
    same.add(Engine::Vector, vread);
    same.add(Engine::Scalar, sread(0));
    auto r = timed(same.p, t);
    CHECK(rec(r, Engine::Scalar, 0).start_ns == doctest::Approx(dv));
    CHECK(rec(r, Engine::Scalar, 0).cause == sim::StallCause::psum_bank);
    Builder other;
    other.add(Engine::Vector, vread);
    other.add(Engine::Scalar, sread(1));
    CHECK(rec(timed(other.p, t), Engine::Scalar, 0).start_ns == doctest::Approx(t.nc_version <= 2 ? dv : 0.0));
    auto off = t;
    off.psum_bank_conflicts = 0;
    CHECK(rec(timed(same.p, off), Engine::Scalar, 0).start_ns == 0);
  }
}

TEST_CASE("target parameters drive the timing (no numbers in the model)") {
  auto t = target("trn2");
  t.vector_ghz = 2.0;
  t.min_ii_cycles = 10;
  CHECK(alone(t, Engine::Vector, tt(DType::float32, 8)) == doctest::Approx(16 / 2.0));
  t.gpsimd_start_cycles = 0;
  CHECK(alone(t, Engine::GpSimd, tt(DType::float32, 8)) == doctest::Approx(16 / t.gpsimd_ghz));
}

TEST_CASE("big programs: the threaded preparation gives the same results and the same first error") {
  // 3 x 30000 instructions over three engines, chained through semaphores.
  auto build = [](int bad_vector, int bad_scalar) {
    Builder b;
    for (uint32_t i = 0; i < 30000; ++i) {
      auto v = make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, 4096 + (i % 4) * 1024, 256), sbuf(DType::float32, 0, 128, 0, 256)});
      if (int(i) == bad_vector) v.operands[0].offset = 1 << 30;  // out of SBUF
      v.updates.push_back({0, 1});
      b.add(Engine::Vector, v);
      auto a = make(Opcode::activation, {sbuf(DType::float32, 0, 128, 16384 + (i % 4) * 1024, 256), sbuf(DType::float32, 0, 128, 4096 + (i % 4) * 1024, 256)});
      if (int(i) == bad_scalar) a.operands[1].num_partitions = 300;
      a.waits.push_back({0, i + 1});
      b.add(Engine::Scalar, a);
      b.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 32768, 64)}));
    }
    return b.p;
  };
  const auto t = target("trn2");
  sim::Options o;
  o.target = t;
  o.timing_only = true;
  o.timeline = true;
  auto serial = o;
  serial.parallel = false;
  const auto p = build(-1, -1);
  auto a = sim::simulate(p, std::vector<sim::HostArray>{}, o);
  auto s = sim::simulate(p, std::vector<sim::HostArray>{}, serial);
  CHECK(a.total_ns == s.total_ns);
  CHECK(a.engines["scalar"].busy_ns == s.engines["scalar"].busy_ns);
  REQUIRE(a.timeline.size() == s.timeline.size());
  bool same = true;
  for (size_t i = 0; i < a.timeline.size(); ++i) same = same && a.timeline[i].start_ns == s.timeline[i].start_ns;
  CHECK(same);
  // Two invalid instructions: Vector's (earlier in stream order) is reported, though Scalar's is reached first.
  auto error = [&](const isa::Program& q, const sim::Options& opts) {
    try {
      sim::simulate(q, std::vector<sim::HostArray>{}, opts);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto bad = build(29000, 10);
  const std::string want = error(bad, serial);
  CHECK(want.find("tensor_copy") != std::string::npos);
  CHECK(error(bad, o) == want);
  CHECK(error(build(-1, 20000), o) == error(build(-1, 20000), serial));
}
