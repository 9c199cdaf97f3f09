// test_tensor_engine.cpp - Tensor Engine matmul numerics (load_stationary + multiply_moving): dtypes, fp32
// accumulation order, accumulate, bf16 PSUM output, double_row, and the run-time checks. References are
// computed in te_test_util.h.
#include <doctest/doctest.h>

#include "te_test_util.h"

using namespace tetest;

TEST_CASE("multiply_moving: bf16 inputs, exact products, fp32 sum in contraction order") {
  const uint32_t K = 128, M = 128, N = 512;
  Data s = sample(DType::bfloat16, K * M, 1, false), v = sample(DType::bfloat16, K * N, 2, false);
  auto got = matmul(DType::bfloat16, DType::bfloat16, s, v, K, M, N);
  auto want = ref_fp32(s.val, v.val, K, M, N);
  auto exact = ref_double(s.val, v.val, K, M, N);
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bad += isa::float_to_bits(got[i]) != isa::float_to_bits(want[i]);
    worst = std::max(worst, std::fabs(double(got[i]) - exact[i]));
  }
  CHECK(bad == 0);
  CHECK(worst < K * 16.0 * 16.0 * std::ldexp(1.0, -23));  // K additions of terms |p| <= 16, error <= K ulp(K*16)
}

TEST_CASE("multiply_moving: every input dtype, small integers exactly") {
  const uint32_t K = 128, M = 64, N = 96;
  struct Case {
    DType s, v;
  };
  for (Case c : {Case{DType::bfloat16, DType::bfloat16}, Case{DType::float16, DType::float16},
                 Case{DType::float8_e4m3, DType::float8_e4m3}, Case{DType::float8_e5m2, DType::float8_e4m3},
                 Case{DType::bfloat16, DType::float8_e5m2}, Case{DType::float16, DType::bfloat16},
                 Case{DType::tfloat32, DType::tfloat32}, Case{DType::float32, DType::tfloat32},
                 Case{DType::float32, DType::float32}}) {
    CAPTURE(isa::dtype_name(c.s));
    CAPTURE(isa::dtype_name(c.v));
    Data s = sample(c.s, K * M, 3, true), v = sample(c.v, K * N, 4, true);
    auto got = matmul(c.s, c.v, s, v, K, M, N);
    auto exact = ref_double(s.val, v.val, K, M, N);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += double(got[i]) != exact[i];
    CHECK(bad == 0);
    Data sr = sample(c.s, K * M, 5, false), vr = sample(c.v, K * N, 6, false);
    auto gr = matmul(c.s, c.v, sr, vr, K, M, N);
    auto wr = ref_fp32(sr.val, vr.val, K, M, N);
    bad = 0;
    for (size_t i = 0; i < gr.size(); ++i) bad += isa::float_to_bits(gr[i]) != isa::float_to_bits(wr[i]);
    CHECK(bad == 0);
  }
}

TEST_CASE("multiply_moving: edge sizes K, M, N in {1, 128, 512}") {
  struct Shape {
    uint32_t K, M, N;
  };
  for (Shape sh : {Shape{1, 1, 1}, Shape{1, 128, 512}, Shape{128, 1, 1}, Shape{128, 128, 1}, Shape{1, 1, 512},
                   Shape{7, 33, 100}}) {
    CAPTURE(sh.K);
    CAPTURE(sh.M);
    CAPTURE(sh.N);
    Data s = sample(DType::bfloat16, sh.K * sh.M, 7, false), v = sample(DType::bfloat16, sh.K * sh.N, 8, false);
    auto got = matmul(DType::bfloat16, DType::bfloat16, s, v, sh.K, sh.M, sh.N);
    auto want = ref_fp32(s.val, v.val, sh.K, sh.M, sh.N);
    REQUIRE(got.size() == want.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += isa::float_to_bits(got[i]) != isa::float_to_bits(want[i]);
    CHECK(bad == 0);
  }
}

TEST_CASE("multiply_moving: fp32 products are rounded before they are added (never fused)") {
  // k=0: -(1 + 2^-11) * 1; k=1: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 -> sum 0 (fused: 2^-24).
  const float a = 1.0f + std::ldexp(1.0f, -12), b = 1.0f + std::ldexp(1.0f, -11);
  Data s{{-b, a}, {enc(DType::float32, -b), enc(DType::float32, a)}};
  Data v{{1.0f, a}, {enc(DType::float32, 1.0f), enc(DType::float32, a)}};
  auto got = matmul(DType::float32, DType::float32, s, v, 2, 1, 1);
  CHECK(got.at(0) == 0.0f);
  // A sum of products that cancel exactly gives +0.0 (the systolic partial sum starts at +0.0).
  Data z{{-1.0f}, {enc(DType::float32, -1.0f)}}, o{{0.0f}, {enc(DType::float32, 0.0f)}};
  CHECK(isa::float_to_bits(matmul(DType::float32, DType::float32, z, o, 1, 1, 1).at(0)) == 0u);
}

TEST_CASE("multiply_moving: accumulate adds onto PSUM in fp32, accumulate=false overwrites") {
  const uint32_t K = 32, M = 16, N = 64;
  Data s1 = sample(DType::bfloat16, K * M, 11, false), v1 = sample(DType::bfloat16, K * N, 12, false);
  Data s2 = sample(DType::bfloat16, K * M, 13, false), v2 = sample(DType::bfloat16, K * N, 14, false);
  Rig r;
  auto a1 = r.input(DType::bfloat16, K, M, s1.bits), b1 = r.input(DType::bfloat16, K, N, v1.bits);
  auto a2 = r.input(DType::bfloat16, K, M, s2.bits), b2 = r.input(DType::bfloat16, K, N, v2.bits);
  auto d = psum(DType::float32, 0, M, 0, N), e = psum(DType::float32, 0, M, 2048, N);
  r.ls(a2);
  r.mm(e, b2);  // e = garbage for the overwrite below
  r.ls(a1);
  r.mm(d, b1);  // d = s1.T v1
  r.ls(a2);
  r.mm(d, b2, true);  // d += s2.T v2
  r.ls(a1);
  r.mm(e, b1, false);  // e = s1.T v1 (overwrites)
  r.result(d);
  r.result(e);
  auto res = r.run();
  auto gd = values<float>(res.outputs.at(0)), ge = values<float>(res.outputs.at(1));
  auto p1 = ref_fp32(s1.val, v1.val, K, M, N), p2 = ref_fp32(s2.val, v2.val, K, M, N);
  size_t bad_d = 0, bad_e = 0;
  for (size_t i = 0; i < p1.size(); ++i) {
    bad_d += isa::float_to_bits(gd[i]) != isa::float_to_bits(p1[i] + p2[i]);
    bad_e += isa::float_to_bits(ge[i]) != isa::float_to_bits(p1[i]);
  }
  CHECK(bad_d == 0);
  CHECK(bad_e == 0);
}

TEST_CASE("multiply_moving: bf16 PSUM output on trn3 rounds to nearest even, accumulates via fp32") {
  const uint32_t K = 64, M = 32, N = 128;
  Data s = sample(DType::bfloat16, K * M, 21, false), v = sample(DType::bfloat16, K * N, 22, false);
  Rig r;
  auto a = r.input(DType::bfloat16, K, M, s.bits), b = r.input(DType::bfloat16, K, N, v.bits);
  auto d = psum(DType::bfloat16, 0, M, 0, N);
  r.ls(a);
  r.mm(d, b);
  r.mm(d, b, true);  // the stationary stays loaded
  r.result(d);
  auto got = bits_of(r.run("trn3").outputs.at(0));
  auto p = ref_fp32(s.val, v.val, K, M, N);
  size_t bad = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const float once = bf16_round(p[i]);
    bad += got[i] != bf16_bits(once + p[i]);
  }
  CHECK(bad == 0);
  // trn2 rejects a bf16 matmul output.
  Rig r2;
  auto a2 = r2.input(DType::bfloat16, K, M, s.bits), b2 = r2.input(DType::bfloat16, K, N, v.bits);
  r2.ls(a2);
  r2.mm(psum(DType::bfloat16, 0, M, 0, N), b2);
  CHECK(run_error(r2) == "multiply_moving: dst must be float32 on trn2, got bfloat16");
}

TEST_CASE("multiply_moving double_row: FP8 K = 2 x 128 as one pass") {
  const uint32_t K = 128, M = 64, N = 256;
  Data s = sample(DType::float8_e4m3, K * 2 * M, 71, false), v = sample(DType::float8_e5m2, K * 2 * N, 72, false);
  Rig r;
  auto a = r.input(DType::float8_e4m3, K, 2 * M, s.bits), b = r.input(DType::float8_e5m2, K, 2 * N, v.bits);
  auto d = psum(DType::float32, 0, M, 0, N);
  r.ls(a).params.double_row = true;
  r.mm(d, b).params.double_row = true;
  r.result(d);
  auto got = values<float>(r.run().outputs.at(0));
  // Contraction row 2k + l = half l of partition k.
  std::vector<float> s2(size_t(2 * K) * M), v2(size_t(2 * K) * N);
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t l = 0; l < 2; ++l) {
      for (uint32_t m = 0; m < M; ++m) s2[(2 * k + l) * M + m] = s.val[k * 2 * M + l * M + m];
      for (uint32_t n = 0; n < N; ++n) v2[(2 * k + l) * N + n] = v.val[k * 2 * N + l * N + n];
    }
  auto want = ref_fp32(s2, v2, 2 * K, M, N);
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) bad += isa::float_to_bits(got[i]) != isa::float_to_bits(want[i]);
  CHECK(bad == 0);
}

TEST_CASE("Tensor Engine run-time checks name the rule") {
  auto z = [](size_t n) { return std::vector<uint32_t>(n, 0); };
  {
    Rig r;
    auto b = r.input(DType::bfloat16, 8, 8, z(64));
    r.mm(psum(DType::float32, 0, 8, 0, 8), b);
    CHECK(run_error(r) ==
          "multiply_moving: the PE array holds no stationary (a load_stationary must come first on the Tensor engine)");
  }
  {
    Rig r;
    auto a = r.input(DType::bfloat16, 16, 8, z(128)), b = r.input(DType::bfloat16, 8, 8, z(64));
    r.ls(a);
    r.mm(psum(DType::float32, 0, 8, 0, 8), b);
    CHECK(run_error(r) ==
          "multiply_moving: moving has 8 partitions but the loaded stationary has 16 (the contraction sizes K must "
          "match)");
  }
  {
    Rig r;
    auto a = r.input(DType::bfloat16, 8, 8, z(64)), b = r.input(DType::bfloat16, 8, 8, z(64));
    r.ls(a);
    r.mm(psum(DType::float32, 0, 4, 0, 8), b);
    CHECK(run_error(r) == "multiply_moving: dst has 4 partitions x 8 elements but stationary.T @ moving is 8 x 8");
  }
  {
    Rig r;
    auto a = r.input(DType::bfloat16, 8, 8, z(64)), b = r.input(DType::bfloat16, 8, 1024, z(8192));
    r.ls(a);
    r.mm(psum(DType::float32, 0, 8, 0, 1024), b);
    CHECK(run_error(r) == "multiply_moving: moving free size N=1024 exceeds 512 (gemm_moving_fmax: one PSUM bank of float32)");
  }
  {
    Rig r;
    auto a = r.input(DType::bfloat16, 8, 8, z(64)), b = r.input(DType::bfloat16, 8, 512, z(4096));
    r.ls(a);
    r.mm(psum(DType::float32, 0, 8, 1024, 512), b);
    CHECK(run_error(r) == "multiply_moving: dst bytes [1024, 3072) cross a PSUM bank boundary (banks are 2048 bytes)");
  }
  {
    Rig r;
    auto a = r.input(DType::float32, 8, 8, z(64)), b = r.input(DType::bfloat16, 8, 8, z(64));
    r.ls(a);
    r.mm(psum(DType::float32, 0, 8, 0, 8), b);
    CHECK(run_error(r) ==
          "multiply_moving: float32/tfloat32 inputs must pair with float32/tfloat32, but the "
          "stationary is float32 and moving is bfloat16");
  }
  {
    Rig r;
    auto a = r.input(DType::int8, 8, 8, z(64));
    r.ls(a);
    CHECK(run_error(r) ==
          "load_stationary: stationary dtype int8 is not a Tensor Engine input dtype (expected "
          "float8_e4m3, float8_e5m2, bfloat16, float16, tfloat32 or float32)");
  }
  {
    Rig r;
    auto a = r.input(DType::float8_e4m3, 8, 8, z(64));
    r.ls(a).params.double_row = true;
    CHECK(run_error(r, "trn1") == "load_stationary: double_row needs trn2 or later, not trn1");
  }
}
