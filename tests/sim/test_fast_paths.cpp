// test_fast_paths.cpp - the simulator's fast kernels give exactly the results of the plain loops they
// replace (docs/performance.md): the blocked, threaded PE matrix product, the 2-D element-wise ALU forms
// and the inlined folds, on random data with NaN payloads, infinities, signed zeros and subnormals.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isa/dtype.h"
#include "sim/alu.h"
#include "sim/convert.h"
#include "sim/gemm.h"
#include "sim/parallel.h"
#include "float_test_util.h"

using namespace nkisim;
using floattest::random_values;
using floattest::same_bits;
using floattest::same_bits_or_both_nan;

TEST_CASE("pe_gemm equals the sequential triple loop bit for bit (every size class, fp32 and bf16, with specials)") {
  struct Shape {
    uint32_t K, M, N;
  };
  const Shape shapes[] = {{1, 1, 1},     {3, 7, 17},   {128, 128, 512}, {128, 5, 100}, {256, 128, 512},
                          {64, 128, 48}, {2, 128, 4096}, {128, 13, 31}, {17, 128, 65}, {9, 14, 40},
                          {5, 8, 33},    {33, 20, 70}};
  uint32_t seed = 1;
  for (const Shape& s : shapes)
    for (bool bf16 : {true, false})
      for (double rate : {0.0, 0.02}) {
        CAPTURE(s.K);
        CAPTURE(s.M);
        CAPTURE(s.N);
        CAPTURE(bf16);
        CAPTURE(rate);
        auto w = random_values(size_t(s.K) * s.M, seed++, rate, bf16);
        auto v = random_values(size_t(s.K) * s.N, seed++, rate, bf16);
        std::vector<float> fast(size_t(s.M) * s.N, 42.0f), ref(size_t(s.M) * s.N, -42.0f);
        sim::pe_gemm(w.data(), v.data(), s.K, s.M, s.N, fast.data());
        sim::pe_gemm_reference(w.data(), v.data(), s.K, s.M, s.N, ref.data());
        if (rate == 0.0) CHECK(same_bits(fast, ref));
        else CHECK(same_bits_or_both_nan(fast, ref));
      }
}

TEST_CASE("pe_gemm from memory: dtypes converted per panel, padded rows, accumulate into a strided dst") {
  // The moving operand as bytes of bf16 / fp8 / fp16 / fp32 rows with padding between rows; the result
  // written into (or added onto) every other row-slot of a wider dst. Reference: convert the whole operand,
  // run the triple loop, then out = old + result where accumulating.
  struct Case {
    uint32_t K, M, N;
    isa::DType dt;
  };
  const Case cases[] = {{128, 128, 512, isa::DType::bfloat16}, {128, 128, 100, isa::DType::bfloat16},
                        {7, 13, 33, isa::DType::float8_e4m3}, {64, 128, 80, isa::DType::float16},
                        {128, 5, 640, isa::DType::float32},   {256, 128, 17, isa::DType::float8_e5m2},
                        {1, 1, 1, isa::DType::bfloat16}};
  uint32_t seed = 100;
  for (const Case& c : cases)
    for (bool accumulate : {false, true}) {
      CAPTURE(c.K);
      CAPTURE(c.M);
      CAPTURE(c.N);
      CAPTURE(isa::dtype_name(c.dt));
      CAPTURE(accumulate);
      const unsigned es = isa::dtype_size(c.dt);
      const int64_t row_step = int64_t(c.N + 9) * es;  // padded rows
      auto w = random_values(size_t(c.K) * c.M, seed++, 0.0, true);
      auto vals = random_values(size_t(c.K) * c.N, seed++, 0.0, false);
      std::vector<uint8_t> mem(size_t(row_step) * c.K, 0xAB);
      std::vector<float> v(size_t(c.K) * c.N);  // the operand as the engine sees it (after conversion)
      for (uint32_t k = 0; k < c.K; ++k) {
        sim::store_f32(c.dt, mem.data() + k * row_step, es, c.N, vals.data() + size_t(k) * c.N);
        sim::load_f32(c.dt, mem.data() + k * row_step, es, c.N, v.data() + size_t(k) * c.N);
      }
      const int64_t ostride = 2 * int64_t(c.N) + 3;
      auto old = random_values(size_t(c.M) * ostride, seed++, 0.0, false);
      std::vector<float> out = old, prod(size_t(c.M) * c.N);
      sim::pe_gemm_reference(w.data(), v.data(), c.K, c.M, c.N, prod.data());
      std::vector<float> want = old;
      for (uint32_t m = 0; m < c.M; ++m)
        for (uint32_t n = 0; n < c.N; ++n) {
          float& o = want[size_t(m) * ostride + n];
          o = accumulate ? o + prod[size_t(m) * c.N + n] : prod[size_t(m) * c.N + n];
        }
      sim::GemmMoving moving;
      moving.base = mem.data();
      moving.row_step = row_step;
      moving.dtype = c.dt;
      sim::GemmOut o;
      o.base = out.data();
      o.row_step = ostride;
      o.accumulate = accumulate;
      sim::pe_gemm(w.data(), c.K, c.M, c.N, moving, o);
      CHECK(same_bits(out, want));  // including the untouched slots between rows
    }
}

TEST_CASE("pe_gemm from bf16 memory: the panel's range check decides fused or not, bit for bit either way") {
  // bf16 rows read straight from memory (converted and range-checked in one pass): specials in the moving or
  // the stationary (NaN, inf, subnormals: never fused), panels scaled to the edges of fp32's normal range
  // (fused only where every product is exact), and widths with a scalar tail.
  struct Case {
    uint32_t K, M, N;
  };
  const Case cases[] = {{128, 128, 512}, {5, 7, 70}, {128, 9, 100}, {33, 128, 16}};
  uint32_t seed = 300;
  for (const Case& c : cases)
    for (double rate : {0.0, 0.01})
      for (int shift : {-120, -63, -20, 0, 63, 100}) {
        CAPTURE(c.K);
        CAPTURE(c.N);
        CAPTURE(rate);
        CAPTURE(shift);
        auto w = random_values(size_t(c.K) * c.M, seed++, shift == 0 ? rate : 0.0, true);
        auto v = random_values(size_t(c.K) * c.N, seed++, rate, true);
        for (float& x : v) x = floattest::bf16_cut(std::ldexp(x, shift));
        const int64_t row_step = int64_t(c.N + 5) * 2;
        std::vector<uint8_t> mem(size_t(row_step) * c.K, 0xCD);
        for (uint32_t k = 0; k < c.K; ++k)
          sim::store_f32(isa::DType::bfloat16, mem.data() + k * row_step, 2, c.N, v.data() + size_t(k) * c.N);
        std::vector<float> want(size_t(c.M) * c.N), out(size_t(c.M) * c.N, 7.0f);
        sim::pe_gemm_reference(w.data(), v.data(), c.K, c.M, c.N, want.data());
        sim::GemmMoving moving;
        moving.base = mem.data();
        moving.row_step = row_step;
        moving.dtype = isa::DType::bfloat16;
        sim::GemmOut o;
        o.base = out.data();
        o.row_step = c.N;
        sim::pe_gemm(w.data(), c.K, c.M, c.N, moving, o);
        if (rate == 0.0) CHECK(same_bits(out, want));
        else CHECK(same_bits_or_both_nan(out, want));
      }
}

TEST_CASE("pe_gemm_start / pe_gemm_settle: the product left running equals pe_gemm, chained starts in order") {
  // Three products accumulating into one output, each started while the previous may still run (a start
  // settles the one before); the weights are changed right after each start (they are packed first).
  const uint32_t K = 128, M = 128, N = 512;
  std::vector<std::vector<float>> ws, vs;
  for (uint32_t i = 0; i < 3; ++i) {
    ws.push_back(random_values(size_t(K) * M, 500 + i, 0.0, true));
    vs.push_back(random_values(size_t(K) * N, 600 + i, 0.0, true));
  }
  std::vector<float> want(size_t(M) * N, 0.0f), got(size_t(M) * N, 0.0f), w(size_t(K) * M);
  for (uint32_t i = 0; i < 3; ++i) {
    sim::GemmMoving mv;
    mv.base = reinterpret_cast<const uint8_t*>(vs[i].data());
    mv.row_step = int64_t(N) * 4;
    sim::GemmOut o;
    o.base = want.data();
    o.row_step = N;
    o.accumulate = i > 0;
    sim::pe_gemm(ws[i].data(), K, M, N, mv, o);
    o.base = got.data();
    w = ws[i];
    sim::pe_gemm_start(w.data(), K, M, N, mv, o);
    std::fill(w.begin(), w.end(), 1.0f);
  }
  sim::pe_gemm_settle();
  sim::pe_gemm_settle();  // nothing left: a no-op
  CHECK(same_bits(got, want));

  // Weights prepared while a product runs: used by the next start with the same w, rows and M; another w is
  // packed anew; prepared weights out of scope are forgotten (the same pointer with new values is repacked).
  sim::GemmMoving mv;
  mv.base = reinterpret_cast<const uint8_t*>(vs[0].data());
  mv.row_step = int64_t(N) * 4;
  sim::GemmOut o;
  o.row_step = N;
  std::vector<float> other = ws[2];
  for (int round = 0; round < 3; ++round) {
    std::fill(want.begin(), want.end(), 0.0f);
    std::fill(got.begin(), got.end(), 0.0f);
    w = ws[0];
    o.base = got.data();
    sim::pe_gemm_start(w.data(), K, M, N, mv, o);  // running while the next weights are prepared
    {
      w = ws[1];  // not the running product's weights any more: they were packed at its start
      sim::PreparedWeights prep(round == 1 ? other.data() : w.data(), K, M);
      o.accumulate = true;
      sim::pe_gemm_start(w.data(), K, M, N, mv, o);  // round 1: other's weights were prepared, w is packed
      o.accumulate = false;
    }
    if (round == 2) {  // prepared and not used: forgotten at the end of the scope
      { sim::PreparedWeights unused(w.data(), K, M); }
      w = ws[2];  // the same pointer, new values
      o.accumulate = true;
      sim::pe_gemm(w.data(), K, M, N, mv, o);
      o.accumulate = false;
    }
    sim::pe_gemm_settle();
    sim::GemmOut r = o;
    r.base = want.data();
    sim::pe_gemm(ws[0].data(), K, M, N, mv, r);
    r.accumulate = true;
    sim::pe_gemm(ws[1].data(), K, M, N, mv, r);
    if (round == 2) sim::pe_gemm(ws[2].data(), K, M, N, mv, r);
    CAPTURE(round);
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("pe_gemm: products are rounded before the add, sums run k = 0..K-1 from +0.0") {
  // One output element, K = 2: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; minus (1 + 2^-11)
  // gives exactly 0 (a fused multiply-add would keep 2^-24).
  const float a = 1.0f + std::ldexp(1.0f, -12);
  const float w[2] = {-(1.0f + std::ldexp(1.0f, -11)), a};
  const float v[2] = {1.0f, a};
  float out = 1.0f;
  sim::pe_gemm(w, v, 2, 1, 1, &out);
  CHECK(isa::float_to_bits(out) == 0u);
  // 16 columns (one vector) take the same path through the vector kernel.
  std::vector<float> w16 = {w[0], w[1]}, v16(32), out16(16, 1.0f);
  for (int n = 0; n < 16; ++n) {
    v16[size_t(n)] = 1.0f;
    v16[size_t(16 + n)] = a;
  }
  sim::pe_gemm(w16.data(), v16.data(), 2, 1, 16, out16.data());
  for (float x : out16) CHECK(isa::float_to_bits(x) == 0u);
  // Order: 2^24 + 1 - 2^24 in k order is 0 (the +1 is lost), not 1.
  const float w3[3] = {16777216.0f, 1.0f, -16777216.0f}, v3[3] = {1.0f, 1.0f, 1.0f};
  sim::pe_gemm(w3, v3, 3, 1, 1, &out);
  CHECK(out == 0.0f);
  CHECK(sim::parallel_threads() >= 1);
}

TEST_CASE("pe_gemm: a fused multiply-add only where every product is exact (no underflow, no overflow)") {
  // 16 columns, K = 2, bf16-representable values. Column 0: 1 x 2^-125, then a product of 1.25 x 2^-149, which
  // rounds to 2^-149 (a tie with 2^-125's half ulp, to even: 2^-125 stays); fused, 2^-125 + 0.625 ulp rounds up.
  // Column 1: 2^127 x -1, then 2^64 x 2^64 = 2^128 overflows to inf; fused, 2^128 - 2^127 = 2^127 is finite.
  // Columns 2..15: ordinary values, so the panel would otherwise qualify.
  const float w[2] = {1.0f, std::ldexp(1.25f, -74)};
  std::vector<float> v(32, 0.5f);
  v[0] = std::ldexp(1.0f, -125);
  v[16] = std::ldexp(1.0f, -75);
  std::vector<float> out(16, 3.0f), ref(16);
  sim::pe_gemm(w, v.data(), 2, 1, 16, out.data());
  sim::pe_gemm_reference(w, v.data(), 2, 1, 16, ref.data());
  CHECK(out[0] == std::ldexp(1.0f, -125));
  CHECK(same_bits(out, ref));
  const float w2[2] = {std::ldexp(1.0f, 127), std::ldexp(1.0f, 64)};
  v[0] = -1.0f;
  v[16] = std::ldexp(1.0f, 64);
  sim::pe_gemm(w2, v.data(), 2, 1, 16, out.data());
  sim::pe_gemm_reference(w2, v.data(), 2, 1, 16, ref.data());
  CHECK(std::isinf(out[0]));
  CHECK(same_bits(out, ref));
  // The same bf16 tile scaled into every exponent band: fused or not, the bits are the reference's.
  const uint32_t K = 128, M = 12, N = 64;
  auto wv = random_values(size_t(K) * M, 77, 0.0, true), vv = random_values(size_t(K) * N, 78, 0.0, true);
  for (int shift : {-100, -64, -63, -20, 0, 20, 62, 63, 64, 100}) {
    CAPTURE(shift);
    std::vector<float> ws = wv, fast(size_t(M) * N), want(size_t(M) * N);
    for (float& x : ws) x = std::ldexp(x, shift);
    sim::pe_gemm(ws.data(), vv.data(), K, M, N, fast.data());
    sim::pe_gemm_reference(ws.data(), vv.data(), K, M, N, want.data());
    CHECK(same_bits(fast, want));
  }
}

TEST_CASE("alu 2-D forms equal the per-row loops, also in place and with per-row scalars") {
  const uint32_t P = 5;
  const size_t n = 37;
  const ptrdiff_t stride = 41;
  const auto a0 = random_values(P * size_t(stride), 7, 0.1, false), b0 = random_values(P * size_t(stride), 8, 0.1, false);
  const auto col = random_values(P, 9, 0.2, false);
  for (int o = 0; o < int(isa::AluOp::relu) + 1; ++o) {
    const auto op = isa::AluOp(o);
    if (sim::alu_is_bitvec(op)) continue;
    const std::string name(isa::alu_name(op));
    CAPTURE(name);
    // tensor-tensor, out of place
    std::vector<float> fast(P * size_t(stride), 0.0f), ref(P * size_t(stride), 0.0f);
    sim::alu_tt_f32_rows(op, a0.data(), stride, b0.data(), stride, fast.data(), stride, n, P);
    for (uint32_t i = 0; i < P; ++i)
      sim::alu_tt_f32(op, a0.data() + i * stride, b0.data() + i * stride, ref.data() + i * stride, n);
    CHECK(same_bits_or_both_nan(fast, ref));
    // tensor-tensor in place on a
    std::vector<float> ip = a0;
    sim::alu_tt_f32_rows(op, ip.data(), stride, b0.data(), stride, ip.data(), stride, n, P);
    std::vector<float> ipr = a0;
    for (uint32_t i = 0; i < P; ++i)
      sim::alu_tt_f32(op, ipr.data() + i * stride, b0.data() + i * stride, ipr.data() + i * stride, n);
    CHECK(same_bits_or_both_nan(ip, ipr));
    // tensor-scalar: per-row column and immediate, both operand orders
    for (bool reverse : {false, true})
      for (bool column : {false, true}) {
        std::vector<float> f(P * size_t(stride), 0.0f), r(P * size_t(stride), 0.0f);
        sim::alu_ts_f32_rows(op, a0.data(), stride, column ? col.data() : nullptr, 0.75f, reverse, f.data(), stride, n, P);
        for (uint32_t i = 0; i < P; ++i)
          sim::alu_ts_f32(op, a0.data() + i * stride, column ? col[i] : 0.75f, reverse, r.data() + i * stride, n);
        CHECK(same_bits_or_both_nan(f, r));
      }
  }
}

TEST_CASE("alu_fold_f32 equals the left fold of alu_f32 (NaNs and signed zeros force the sequential order)") {
  std::vector<std::vector<float>> cases;
  for (double rate : {0.0, 0.01, 0.3}) cases.push_back(random_values(1000, uint32_t(11 + rate * 100), rate, false));
  cases.push_back(std::vector<float>(64, 0.0f));
  cases.push_back({-0.0f, 0.0f, -0.0f});
  std::vector<float> zeros(100, 1.0f);
  zeros[50] = -0.0f;
  zeros[70] = 0.0f;
  cases.push_back(zeros);
  std::vector<float> nans(100, 2.0f);
  nans[10] = isa::bits_to_float(0x7fc00001u);
  nans[90] = isa::bits_to_float(0xffc00002u);
  cases.push_back(nans);
  std::vector<float> neg(77);
  for (size_t i = 0; i < neg.size(); ++i) neg[i] = -float(i) - 0.5f;
  cases.push_back(neg);
  for (isa::AluOp op : {isa::AluOp::add, isa::AluOp::subtract, isa::AluOp::multiply, isa::AluOp::maximum,
                        isa::AluOp::minimum, isa::AluOp::abs_max, isa::AluOp::logical_or})
    for (float init : {-std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.5f,
                       isa::bits_to_float(0x7fc00009u)})
      for (const auto& x : cases) {
        const std::string name(isa::alu_name(op));
        CAPTURE(name);
        CAPTURE(init);
        float ref = init;
        for (float v : x) ref = sim::alu_f32(op, ref, v);
        const float fast = sim::alu_fold_f32(op, init, x.data(), x.size());
        // Equal bits; where two NaNs meet the surviving payload is the compiler's choice (see above).
        CHECK((isa::float_to_bits(fast) == isa::float_to_bits(ref) || (std::isnan(fast) && std::isnan(ref))));
      }
}
