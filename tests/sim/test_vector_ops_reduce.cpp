// test_vector_ops_reduce.cpp - tensor_reduce, tensor_partition_reduce, bn_stats, bn_aggr numerics.
#include "vector_test_util.h"

using namespace vectest;

namespace {
// dst = tensor_reduce(op, data[P, F]) grouped by G outputs per partition.
std::vector<float> reduce_f32(AluOp op, const std::vector<float>& x, uint32_t P, uint32_t F, uint32_t G,
                              bool negate = false) {
  Kernel k;
  auto in = k.f32_in(x, P, F);
  auto dst = k.tile(DType::float32, P, G);
  auto& ins = k.op(Engine::Vector, Opcode::tensor_reduce, {dst, in});
  ins.params.op0 = op;
  ins.params.negate = negate;
  k.out(dst);
  return f32_out(k.run(), 0);
}
}  // namespace

TEST_CASE("tensor_reduce fp32: add, maximum, minimum, multiply left to right, negate") {
  for (uint32_t P : {1u, 128u}) {
    const uint32_t F = 37;
    std::vector<float> x = noise(size_t(P) * F, 3, -2.0f, 2.0f);
    struct Case {
      AluOp op;
      float (*f)(float, float);
    };
    const Case cases[] = {{AluOp::add, [](float a, float b) { return a + b; }},
                          {AluOp::maximum, [](float a, float b) { return a > b ? a : b; }},
                          {AluOp::minimum, [](float a, float b) { return a < b ? a : b; }},
                          {AluOp::multiply, [](float a, float b) { return a * b; }}};
    for (const Case& c : cases)
      for (bool neg : {false, true}) {
        CAPTURE(P);
        CAPTURE(isa::alu_name(c.op));
        CAPTURE(neg);
        auto got = reduce_f32(c.op, x, P, F, 1, neg);
        for (uint32_t p = 0; p < P; ++p) {
          float a = x[p * F];
          for (uint32_t j = 1; j < F; ++j) a = c.f(a, x[p * F + j]);
          CHECK(same(got[p], neg ? -a : a));
        }
      }
  }
}

TEST_CASE("tensor_reduce groups: dst free size G reduces consecutive runs of F/G elements") {
  const uint32_t P = 4, F = 24;
  std::vector<float> x = noise(P * F, 5);
  for (uint32_t G : {1u, 2u, 3u, 6u, 24u}) {
    CAPTURE(G);
    auto got = reduce_f32(AluOp::add, x, P, F, G);
    const uint32_t K = F / G;
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t g = 0; g < G; ++g) {
        float a = x[p * F + g * K];
        for (uint32_t j = 1; j < K; ++j) a += x[p * F + g * K + j];
        CHECK(got[p * G + g] == a);
      }
  }
}

TEST_CASE("tensor_reduce special values: NaN propagates through max/add, infinities, one element") {
  std::vector<float> x = {1.0f, kNaN, 3.0f, -kInf, 2.0f, kInf, 5.0f, 7.0f, -kInf, -1.0f, -2.0f, 0.0f};
  auto mx = reduce_f32(AluOp::maximum, x, 4, 3, 1);
  CHECK(std::isnan(mx[0]));
  CHECK(mx[1] == kInf);
  CHECK(mx[2] == 7.0f);
  CHECK(mx[3] == 0.0f);
  auto sum = reduce_f32(AluOp::add, x, 4, 3, 1);
  CHECK(std::isnan(sum[0]));
  CHECK(std::isnan(sum[1]));  // -inf + inf
  CHECK(sum[2] == -kInf);
  auto one = reduce_f32(AluOp::maximum, {-0.0f, kNaN}, 2, 1, 1, true);
  CHECK(same(one[0], 0.0f));
  CHECK(std::isnan(one[1]));
}

TEST_CASE("tensor_reduce bfloat16: fp32 math, one rounding at the end") {
  const uint32_t P = 2, F = 64;
  std::vector<uint16_t> x(P * F);
  std::vector<float> xf = noise(P * F, 9, 0.0f, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = bf16_bits(xf[i]);
  Kernel k;
  auto in = k.raw_in(DType::bfloat16, x, P, F);
  auto dst = k.tile(DType::bfloat16, P, 1);
  k.op(Engine::Vector, Opcode::tensor_reduce, {dst, in}).params.op0 = AluOp::add;
  k.out(dst);
  auto got = values<uint16_t>(k.run().outputs[0]);
  for (uint32_t p = 0; p < P; ++p) {
    float a = 0.0f;
    for (uint32_t j = 0; j < F; ++j) a += bf16_value(x[p * F + j]);
    CHECK(got[p] == bf16_bits(a));
  }
}

TEST_CASE("tensor_reduce bitvec ops fold raw int32 bits, float data is rejected") {
  const uint32_t P = 2, F = 4;
  std::vector<int32_t> x = {0x0F, 0x30, -1, 0x100, 0x7, 0x6, 0x5, 0x4};
  for (auto [op, want0, want1] : {std::tuple{AluOp::bitwise_or, int32_t(-1), int32_t(0x7)},
                                  std::tuple{AluOp::bitwise_and, int32_t(0), int32_t(0x4)},
                                  std::tuple{AluOp::bitwise_xor, int32_t(0x0F ^ 0x30 ^ -1 ^ 0x100), int32_t(0x7 ^ 0x6 ^ 0x5 ^ 0x4)}}) {
    Kernel k;
    auto in = k.raw_in(DType::int32, x, P, F);
    auto dst = k.tile(DType::int32, P, 1);
    k.op(Engine::Vector, Opcode::tensor_reduce, {dst, in}).params.op0 = op;
    k.out(dst);
    auto got = values<int32_t>(k.run().outputs[0]);
    CHECK(got[0] == want0);
    CHECK(got[1] == want1);
  }
  Kernel k;
  auto in = k.f32_in({1, 2, 3, 4}, 1, 4);
  auto dst = k.tile(DType::float32, 1, 1);
  k.op(Engine::Vector, Opcode::tensor_reduce, {dst, in}).params.op0 = AluOp::bitwise_or;
  CHECK(k.error() == "tensor_reduce: operand 'dst' needs an integer dtype for a bitvec reduction, got float32");
}

TEST_CASE("tensor_reduce shape errors") {
  Kernel k;
  auto in = k.f32_in(noise(10, 1), 1, 10);
  auto dst = k.tile(DType::float32, 1, 3);
  k.op(Engine::Vector, Opcode::tensor_reduce, {dst, in}).params.op0 = AluOp::add;
  CHECK(k.error() == "tensor_reduce: data has 10 elements per partition, not a multiple of dst's 3");
  Kernel k2;
  auto in2 = k2.f32_in(noise(10, 1), 1, 10);
  auto dst2 = k2.tile(DType::float32, 1, 1);
  k2.op(Engine::Vector, Opcode::tensor_reduce, {dst2, in2}).params.op0 = AluOp::divide;
  CHECK(k2.error() == "tensor_reduce: 'divide' cannot be used as a reduction");
}

TEST_CASE("tensor_partition_reduce folds partitions in order, bitvec on int32") {
  const uint32_t P = 128, F = 5;
  std::vector<float> x = noise(P * F, 11);
  x[3 * F + 2] = kNaN;
  for (AluOp op : {AluOp::add, AluOp::maximum, AluOp::minimum}) {
    Kernel k;
    auto in = k.f32_in(x, P, F);
    auto dst = k.tile(DType::float32, 1, F);
    k.op(Engine::GpSimd, Opcode::tensor_partition_reduce, {dst, in}).params.op0 = op;
    k.out(dst);
    auto got = f32_out(k.run(), 0);
    for (uint32_t j = 0; j < F; ++j) {
      float a = x[j];
      for (uint32_t p = 1; p < P; ++p) a = sim_ref_fold(op, a, x[p * F + j]);
      CHECK(same(got[j], a));
    }
  }
  std::vector<int32_t> xi = {1, 2, 4, 8, 16, 32};
  Kernel k;
  auto in = k.raw_in(DType::int32, xi, 3, 2);
  auto dst = k.tile(DType::int32, 1, 2);
  k.op(Engine::GpSimd, Opcode::tensor_partition_reduce, {dst, in}).params.op0 = AluOp::bitwise_or;
  k.out(dst);
  auto got = values<int32_t>(k.run().outputs[0]);
  CHECK(got[0] == (1 | 4 | 16));
  CHECK(got[1] == (2 | 8 | 32));
}

TEST_CASE("bn_stats: (count, mean, count*var) of even then odd elements, bn_aggr combines to mean, var") {
  for (uint32_t F : {1u, 2u, 7u, 512u}) {
    CAPTURE(F);
    const uint32_t P = 128;
    std::vector<float> x = noise(size_t(P) * F, F, -3.0f, 5.0f);
    Kernel k;
    auto in = k.f32_in(x, P, F);
    auto st = k.tile(DType::float32, P, 6);
    auto ag = k.tile(DType::float32, P, 2);
    k.op(Engine::Vector, Opcode::bn_stats, {st, in});
    k.op(Engine::Vector, Opcode::bn_aggr, {ag, st});
    k.out(st);
    k.out(ag);
    auto r = k.run();
    auto s = f32_out(r, 0), a = f32_out(r, 1);
    for (uint32_t p = 0; p < P; ++p) {
      double sum[2] = {0, 0}, cnt[2] = {0, 0};
      for (uint32_t j = 0; j < F; ++j) sum[j % 2] += x[p * F + j], cnt[j % 2] += 1;
      double m2[2] = {0, 0}, mean[2];
      for (int h = 0; h < 2; ++h) mean[h] = cnt[h] ? sum[h] / cnt[h] : 0.0;
      for (uint32_t j = 0; j < F; ++j) m2[j % 2] += (x[p * F + j] - mean[j % 2]) * (x[p * F + j] - mean[j % 2]);
      for (int h = 0; h < 2; ++h) {
        CHECK(s[6 * p + 3 * h] == float(cnt[h]));
        CHECK(s[6 * p + 3 * h + 1] == doctest::Approx(mean[h]).epsilon(1e-5).scale(1.0));
        CHECK(s[6 * p + 3 * h + 2] == doctest::Approx(m2[h]).epsilon(1e-4).scale(1.0));
      }
      const double all_mean = (sum[0] + sum[1]) / F;
      double var = 0;
      for (uint32_t j = 0; j < F; ++j) var += (x[p * F + j] - all_mean) * (x[p * F + j] - all_mean);
      var /= F;
      CHECK(a[2 * p] == doctest::Approx(all_mean).epsilon(1e-5).scale(1.0));
      CHECK(a[2 * p + 1] == doctest::Approx(var).epsilon(1e-4).scale(1.0));
    }
  }
}

TEST_CASE("bn_stats rejects more than 512 elements, bn_aggr needs triples") {
  Kernel k;
  auto in = k.f32_in(noise(513, 1), 1, 513);
  auto st = k.tile(DType::float32, 1, 6);
  k.op(Engine::Vector, Opcode::bn_stats, {st, in});
  CHECK(k.error() == "bn_stats: data has 513 elements per partition; at most 512 (bn_stats_fmax)");
  Kernel k2;
  auto in2 = k2.f32_in(noise(4, 1), 1, 4);
  auto ag = k2.tile(DType::float32, 1, 2);
  k2.op(Engine::Vector, Opcode::bn_aggr, {ag, in2});
  CHECK(k2.error() == "bn_aggr: data must hold (count, mean, count*variance) triples, but has 4 elements per partition");
}
