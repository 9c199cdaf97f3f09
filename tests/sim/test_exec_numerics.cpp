// test_exec_numerics.cpp - executor numerics: tensor_tensor, tensor_scalar, activation, copies, memset.
#include <doctest/doctest.h>

#include <cmath>

#include "sim_test_util.h"

using namespace simtest;
using isa::AluOp;

namespace {
// Runs dst = a op b on the Vector engine for fp32 [P, F] inputs and returns dst.
std::vector<float> run_tt_f32(AluOp op, const std::vector<float>& a, const std::vector<float>& b, uint32_t P,
                              uint32_t F) {
  Pipeline k;
  auto ta = k.load("a", DType::float32, P, F, 0);
  auto tb = k.load("b", DType::float32, P, F, 4096);
  auto out = sbuf(DType::float32, 0, P, 8192, F);
  auto ins = make(Opcode::tensor_tensor, {out, ta, tb});
  ins.params.op0 = op;
  k.compute(Engine::Vector, ins);
  k.store("out", out);
  auto r = k.run({f32_array({P, F}, a), f32_array({P, F}, b)});
  REQUIRE(r.outputs.size() == 1);
  return values<float>(r.outputs[0]);
}
}  // namespace

TEST_CASE("tensor_tensor fp32 arithmetic, comparison and logical ops match fp32 math") {
  const uint32_t P = 4, F = 16;
  std::vector<float> a = ramp(P * F, -3.25f, 0.37f), b = ramp(P * F, 2.5f, -0.21f);
  b[5] = a[5];  // an equal pair for the comparisons
  b[7] = 0.0f;
  struct Case {
    AluOp op;
    float (*ref)(float, float);
  };
  const Case cases[] = {
      {AluOp::add, [](float x, float y) { return x + y; }},
      {AluOp::subtract, [](float x, float y) { return x - y; }},
      {AluOp::multiply, [](float x, float y) { return x * y; }},
      {AluOp::divide, [](float x, float y) { return x / y; }},
      {AluOp::maximum, [](float x, float y) { return x > y ? x : y; }},
      {AluOp::minimum, [](float x, float y) { return x < y ? x : y; }},
      {AluOp::equal, [](float x, float y) { return x == y ? 1.0f : 0.0f; }},
      {AluOp::greater_equal, [](float x, float y) { return x >= y ? 1.0f : 0.0f; }},
      {AluOp::less, [](float x, float y) { return x < y ? 1.0f : 0.0f; }},
      {AluOp::logical_and, [](float x, float y) { return (x != 0 && y != 0) ? 1.0f : 0.0f; }},
      {AluOp::logical_xor, [](float x, float y) { return ((x != 0) != (y != 0)) ? 1.0f : 0.0f; }},
      {AluOp::abs_max, [](float x, float y) { return std::fabs(x) > std::fabs(y) ? x : y; }},
      {AluOp::power, [](float x, float y) { return std::pow(x, y); }},
  };
  for (const Case& c : cases) {
    CAPTURE(isa::alu_name(c.op));
    auto got = run_tt_f32(c.op, a, b, P, F);
    for (size_t i = 0; i < a.size(); ++i) {
      float want = c.ref(a[i], b[i]);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
      } else {
        CHECK(got[i] == want);
      }
    }
  }
}

TEST_CASE("tensor_tensor on bfloat16 rounds the fp32 result to nearest even") {
  const uint32_t P = 2, F = 8;
  std::vector<uint16_t> a(P * F), b(P * F);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = bf16_bits(1.0f + float(i) / 128.0f);
    b[i] = bf16_bits(1.0f / 256.0f * float(i % 3));  // sums land between bf16 values
  }
  Pipeline k;
  auto ta = k.load("a", DType::bfloat16, P, F, 0);
  auto tb = k.load("b", DType::bfloat16, P, F, 1024);
  for (AluOp op : {AluOp::add, AluOp::multiply, AluOp::maximum}) {
    auto out = sbuf(DType::bfloat16, 0, P, 2048 + 1024 * int(op), F);
    auto ins = make(Opcode::tensor_tensor, {out, ta, tb});
    ins.params.op0 = op;
    k.compute(Engine::Vector, ins);
    k.store("out", out);
  }
  auto r = k.run({raw_array(DType::bfloat16, {P, F}, a), raw_array(DType::bfloat16, {P, F}, b)});
  REQUIRE(r.outputs.size() == 3);
  auto add = values<uint16_t>(r.outputs[0]), mul = values<uint16_t>(r.outputs[1]), mx = values<uint16_t>(r.outputs[2]);
  int inexact = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    float x = bf16_value(a[i]), y = bf16_value(b[i]);
    CHECK(add[i] == bf16_bits(x + y));
    CHECK(mul[i] == bf16_bits(x * y));
    CHECK(mx[i] == bf16_bits(std::max(x, y)));
    inexact += bf16_value(add[i]) != x + y;
  }
  CHECK(inexact > 0);  // the test really exercises rounding
}

TEST_CASE("tensor_tensor bitvec ops on int32 work on raw bits") {
  const uint32_t P = 2, F = 4;
  std::vector<int32_t> a = {-1, 0x0F0F0F0F, 12345, -8, 1, 2, 3, INT32_MIN};
  std::vector<int32_t> b = {0x00FF00FF, 0x33333333, 7, 1, 31, 0, 40, 4};
  struct Case {
    AluOp op;
    uint32_t (*ref)(uint32_t, uint32_t);
  };
  const Case cases[] = {
      {AluOp::bitwise_and, [](uint32_t x, uint32_t y) { return x & y; }},
      {AluOp::bitwise_or, [](uint32_t x, uint32_t y) { return x | y; }},
      {AluOp::bitwise_xor, [](uint32_t x, uint32_t y) { return x ^ y; }},
      {AluOp::left_shift, [](uint32_t x, uint32_t y) { return y >= 32 ? 0u : x << y; }},
      {AluOp::right_shift, [](uint32_t x, uint32_t y) { return y >= 32 ? 0u : x >> y; }},  // logical
  };
  for (const Case& c : cases) {
    CAPTURE(isa::alu_name(c.op));
    Pipeline k;
    auto ta = k.load("a", DType::int32, P, F, 0);
    auto tb = k.load("b", DType::int32, P, F, 256);
    auto out = sbuf(DType::int32, 0, P, 512, F);
    auto ins = make(Opcode::tensor_tensor, {out, ta, tb});
    ins.params.op0 = c.op;
    k.compute(Engine::Vector, ins);
    k.store("out", out);
    auto r = k.run({raw_array(DType::int32, {P, F}, a), raw_array(DType::int32, {P, F}, b)});
    auto got = values<int32_t>(r.outputs[0]);
    for (size_t i = 0; i < a.size(); ++i) CHECK(uint32_t(got[i]) == c.ref(uint32_t(a[i]), uint32_t(b[i])));
  }
}

TEST_CASE("tensor_tensor reads a PSUM operand") {
  const uint32_t P = 3, F = 5;
  Pipeline k;
  auto ta = k.load("a", DType::float32, P, F, 0);
  auto tb = k.load("b", DType::float32, P, F, 64);
  auto ps = psum(DType::float32, 0, P, 0, F);
  auto cp = make(Opcode::tensor_copy, {ps, tb});
  cp.waits.push_back({0, 2});
  cp.updates.push_back({2, 1});
  k.b.add(Engine::Scalar, cp);
  auto out = sbuf(DType::float32, 0, P, 128, F);
  auto ins = make(Opcode::tensor_tensor, {out, ta, ps});
  ins.params.op0 = AluOp::subtract;
  ins.waits.push_back({2, 1});
  k.compute(Engine::Vector, ins);
  k.store("out", out);
  auto a = ramp(P * F, 1, 1), b = ramp(P * F, 0.5f, 0.25f);
  auto got = values<float>(k.run({f32_array({P, F}, a), f32_array({P, F}, b)}).outputs[0]);
  for (size_t i = 0; i < a.size(); ++i) CHECK(got[i] == a[i] - b[i]);
}

TEST_CASE("tensor_scalar with immediates, [P,1] operands and reverse flags") {
  const uint32_t P = 4, F = 6;
  auto x = ramp(P * F, -2.0f, 0.3f);
  std::vector<float> s0 = {1.5f, -2.0f, 0.25f, 3.0f}, s1 = {10.0f, 20.0f, 30.0f, 40.0f};

  SUBCASE("immediates: (x * 2.5) + 1") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto out = sbuf(DType::float32, 0, P, 1024, F);
    auto ins = make(Opcode::tensor_scalar, {out, tx});
    ins.params.op0 = AluOp::multiply;
    ins.params.imm0 = 2.5f;
    ins.params.op1 = AluOp::add;
    ins.params.imm1 = 1.0f;
    k.compute(Engine::Vector, ins);
    k.store("out", out);
    auto got = values<float>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (size_t i = 0; i < x.size(); ++i) CHECK(got[i] == x[i] * 2.5f + 1.0f);
  }
  SUBCASE("[P,1] tiles with reverse: s1 - (s0 / x)") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto t0 = k.load("s0", DType::float32, P, 1, 512);
    auto t1 = k.load("s1", DType::float32, P, 1, 520);
    auto out = sbuf(DType::float32, 0, P, 1024, F);
    auto ins = make(Opcode::tensor_scalar, {out, tx, t0, t1});
    ins.params.op0 = AluOp::divide;
    ins.params.reverse0 = true;
    ins.params.op1 = AluOp::subtract;
    ins.params.reverse1 = true;
    ins.params.imm0 = 99.0f;  // ignored: the tiles win
    k.compute(Engine::Vector, ins);
    k.store("out", out);
    auto got = values<float>(k.run({f32_array({P, F}, x), f32_array({P, 1}, s0), f32_array({P, 1}, s1)}).outputs[0]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < F; ++j) CHECK(got[p * F + j] == s1[p] - s0[p] / x[p * F + j]);
  }
  SUBCASE("op1 bypass means a single op; output cast to bfloat16") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto out = sbuf(DType::bfloat16, 0, P, 1024, F);
    auto ins = make(Opcode::tensor_scalar, {out, tx});
    ins.params.op0 = AluOp::maximum;
    ins.params.imm0 = 0.1f;
    ins.params.imm1 = 1000.0f;  // unused
    k.compute(Engine::Scalar, ins);
    k.store("out", out);
    auto got = values<uint16_t>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (size_t i = 0; i < x.size(); ++i) CHECK(got[i] == bf16_bits(std::max(x[i], 0.1f)));
  }
  SUBCASE("bitvec ops with immediates on int32") {
    std::vector<int32_t> xi = {-1, 255, 256, 0x12345678, -256, 7, 8, 9};
    Pipeline k;
    auto tx = k.load("x", DType::int32, 2, 4, 0);
    auto out = sbuf(DType::int32, 0, 2, 1024, 4);
    auto ins = make(Opcode::tensor_scalar, {out, tx});
    ins.params.op0 = AluOp::bitwise_and;
    ins.params.imm0 = 255.0f;
    ins.params.op1 = AluOp::left_shift;
    ins.params.imm1 = 4.0f;
    k.compute(Engine::Vector, ins);
    k.store("out", out);
    auto got = values<int32_t>(k.run({raw_array(DType::int32, {2, 4}, xi)}).outputs[0]);
    for (size_t i = 0; i < xi.size(); ++i) CHECK(uint32_t(got[i]) == ((uint32_t(xi[i]) & 255u) << 4));
  }
}

TEST_CASE("activation: func(data * scale + bias) with bias tile and immediate or tile scale") {
  const uint32_t P = 4, F = 8;
  auto x = ramp(P * F, -1.5f, 0.11f);
  std::vector<float> bias = {0.5f, -0.25f, 1.0f, 0.0f}, scale = {2.0f, 0.5f, -1.0f, 3.0f};
  SUBCASE("exp with immediate scale") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto tb = k.load("bias", DType::float32, P, 1, 512);
    auto out = sbuf(DType::float32, 0, P, 1024, F);
    auto ins = make(Opcode::activation, {out, tx, tb});
    ins.params.func = isa::ActFunc::exp;
    ins.params.scale = 0.25f;
    k.compute(Engine::Scalar, ins);
    k.store("out", out);
    auto got = values<float>(k.run({f32_array({P, F}, x), f32_array({P, 1}, bias)}).outputs[0]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < F; ++j) CHECK(got[p * F + j] == std::exp(x[p * F + j] * 0.25f + bias[p]));
  }
  SUBCASE("gelu, sigmoid, silu with a scale tile") {
    for (auto func : {isa::ActFunc::gelu, isa::ActFunc::sigmoid, isa::ActFunc::silu, isa::ActFunc::tanh}) {
      CAPTURE(isa::act_name(func));
      Pipeline k;
      auto tx = k.load("x", DType::float32, P, F, 0);
      auto tb = k.load("bias", DType::float32, P, 1, 512);
      auto ts = k.load("scale", DType::float32, P, 1, 520);
      auto out = sbuf(DType::float32, 0, P, 1024, F);
      auto ins = make(Opcode::activation, {out, tx, tb, ts});
      ins.params.func = func;
      k.compute(Engine::Scalar, ins);
      k.store("out", out);
      auto got = values<float>(
          k.run({f32_array({P, F}, x), f32_array({P, 1}, bias), f32_array({P, 1}, scale)}).outputs[0]);
      for (uint32_t p = 0; p < P; ++p) {
        for (uint32_t j = 0; j < F; ++j) {
          double v = double(x[p * F + j] * scale[p] + bias[p]);
          double want = func == isa::ActFunc::gelu      ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
                        : func == isa::ActFunc::sigmoid ? 1 / (1 + std::exp(-v))
                        : func == isa::ActFunc::silu    ? v / (1 + std::exp(-v))
                                                        : std::tanh(v);
          CHECK(got[p * F + j] == doctest::Approx(want).epsilon(1e-5));
        }
      }
    }
  }
}

TEST_CASE("tensor_copy: bit-exact for equal dtypes, via fp32 otherwise") {
  const uint32_t P = 2, F = 4;
  std::vector<uint32_t> bits = {0x7fa00001u, 0xff800000u, 0x00000001u, 0x80000000u,  // sNaN, -inf, denormal, -0
                                0x3f800001u, 0x4b800001u, 0x7f7fffffu, 0x3f808000u};
  Pipeline k;
  auto tx = k.load("x", DType::float32, P, F, 0);
  auto same = sbuf(DType::float32, 0, P, 256, F);
  auto cast = sbuf(DType::bfloat16, 0, P, 512, F);
  k.compute(Engine::Vector, make(Opcode::tensor_copy, {same, tx}));
  k.compute(Engine::GpSimd, make(Opcode::tensor_copy, {cast, tx}));
  k.store("same", same);
  k.store("cast", cast);
  auto r = k.run({raw_array(DType::float32, {P, F}, bits)});
  CHECK(values<uint32_t>(r.outputs[0]) == bits);
  auto c = values<uint16_t>(r.outputs[1]);
  for (size_t i = 0; i < bits.size(); ++i) CHECK(c[i] == isa::from_f32(DType::bfloat16, isa::bits_to_float(bits[i])));
  CHECK(c[7] == 0x3f80);  // 1.00390625 is a tie -> rounds to even
  CHECK(c[6] == 0x7f80);  // FLT_MAX overflows bf16 to +inf

  SUBCASE("int32 above 2^24 survives a same-dtype copy") {
    Pipeline k2;
    auto ti = k2.load("i", DType::int32, 1, 2, 0);
    auto o = sbuf(DType::int32, 0, 1, 64, 2);
    k2.compute(Engine::Vector, make(Opcode::tensor_copy, {o, ti}));
    k2.store("o", o);
    std::vector<int32_t> iv = {16777217, -2147483647};
    CHECK(values<int32_t>(k2.run({raw_array(DType::int32, {1, 2}, iv)}).outputs[0]) == iv);
  }
}

TEST_CASE("tensor_copy across partitions onto itself reads before writing") {
  // src = partitions 0..3, dst = partitions 1..4 of the same SBUF bytes.
  const uint32_t F = 3;
  Pipeline k;
  auto tx = k.load("x", DType::float32, 4, F, 0);
  auto dst = sbuf(DType::float32, 1, 4, 0, F);
  k.compute(Engine::Vector, make(Opcode::tensor_copy, {dst, tx}));
  k.store("out", sbuf(DType::float32, 0, 5, 0, F));
  auto x = ramp(4 * F, 1, 1);
  auto got = values<float>(k.run({f32_array({4, F}, x)}).outputs[0]);
  for (uint32_t j = 0; j < F; ++j) CHECK(got[j] == x[j]);  // partition 0 unchanged
  for (uint32_t p = 1; p < 5; ++p)
    for (uint32_t j = 0; j < F; ++j) CHECK(got[p * F + j] == x[(p - 1) * F + j]);
}

TEST_CASE("dma_copy HBM <-> SBUF with strides, casts and reshapes") {
  SUBCASE("strided HBM read: every other column, cast to bf16 on the way in") {
    Builder b;
    size_t in = b.input("x", DType::float32, {4, 8});
    size_t out = b.output("y", DType::bfloat16, {4, 4});
    auto tile = sbuf(DType::bfloat16, 0, 4, 0, 4);
    const auto& t = b.p.hbm_tensors[in];
    auto& ld = b.add(Engine::Sync, make(Opcode::dma_copy, {tile, hbm(DType::float32, t.address + 4, 8, 4, {{2, 4}})}));
    ld.updates.push_back({0, 1});
    auto& st = b.add(Engine::Scalar, make(Opcode::dma_copy, {b.whole(out), tile}));
    st.waits.push_back({0, 1});
    st.params.dma_queue = 3;
    auto x = ramp(32, 0.1f, 1.37f);
    auto r = sim::simulate(b.p, std::vector{f32_array({4, 8}, x)});
    auto got = values<uint16_t>(r.outputs[0]);
    for (uint32_t p = 0; p < 4; ++p)
      for (uint32_t j = 0; j < 4; ++j) CHECK(got[p * 4 + j] == bf16_bits(x[p * 8 + 2 * j + 1]));
  }
  SUBCASE("element order: a [1, 24] HBM row into a [4, 6] tile, and a transposing store") {
    Builder b;
    size_t in = b.input("x", DType::float32, {1, 24});
    size_t out = b.output("y", DType::float32, {6, 4});
    auto tile = sbuf(DType::float32, 8, 4, 40, 6);
    auto& ld = b.add(Engine::Sync, make(Opcode::dma_copy, {tile, b.whole(in)}));
    ld.updates.push_back({0, 1});
    // Store transposed: dst walks HBM column-major ([4 rows of stride 1] x [6 of stride 4]).
    const auto& t = b.p.hbm_tensors[out];
    auto& st = b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, t.address, 1, 4, {{4, 6}}), tile}));
    st.waits.push_back({0, 1});
    auto x = ramp(24, 0, 1);
    auto got = values<float>(sim::simulate(b.p, std::vector{f32_array({1, 24}, x)}).outputs[0]);
    for (uint32_t p = 0; p < 4; ++p)
      for (uint32_t j = 0; j < 6; ++j) CHECK(got[j * 4 + p] == x[p * 6 + j]);
  }
}

TEST_CASE("memset casts its immediate to the destination dtype") {
  Pipeline k;
  auto f = sbuf(DType::float32, 0, 2, 0, 3);
  auto bf = sbuf(DType::bfloat16, 0, 2, 64, 3);
  auto i8 = sbuf(DType::int8, 0, 2, 128, 3);
  auto m1 = make(Opcode::memset, {f});
  m1.params.imm0 = 1.1f;
  auto m2 = make(Opcode::memset, {bf});
  m2.params.imm0 = 1.1f;
  auto m3 = make(Opcode::memset, {i8});
  m3.params.imm0 = 300.0f;  // saturates
  k.compute(Engine::Vector, m1);
  k.compute(Engine::GpSimd, m2);
  k.compute(Engine::Vector, m3);
  k.store("f", f);
  k.store("bf", bf);
  k.store("i8", i8);
  auto r = k.run({});
  for (float v : values<float>(r.outputs[0])) CHECK(v == 1.1f);
  for (uint16_t v : values<uint16_t>(r.outputs[1])) CHECK(v == bf16_bits(1.1f));
  for (int8_t v : values<int8_t>(r.outputs[2])) CHECK(v == 127);
}

TEST_CASE("reading memory nobody wrote gives the NaN sentinel") {
  Pipeline k;
  k.store("out", sbuf(DType::float32, 0, 2, 4000, 5));  // never written
  auto got = values<uint32_t>(k.run({}).outputs[0]);
  for (uint32_t v : got) CHECK(v == 0xffffffffu);
  CHECK(std::isnan(isa::bits_to_float(got[0])));
}

TEST_CASE("written_inputs lists input tensors an instruction wrote") {
  Builder b;
  size_t a = b.input("a", DType::float32, {2, 4});
  size_t c = b.input("c", DType::float32, {2, 4});
  auto tile = sbuf(DType::float32, 0, 2, 0, 4);
  auto& ld = b.add(Engine::Sync, make(Opcode::dma_copy, {tile, b.whole(a)}));
  ld.updates.push_back({0, 1});
  auto m = make(Opcode::tensor_scalar, {tile, tile});
  m.params.op0 = AluOp::multiply;
  m.params.imm0 = 2.0f;
  m.waits.push_back({0, 1});
  m.updates.push_back({1, 1});
  b.add(Engine::Vector, m);
  auto& st = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(c), tile}));  // writes input 'c' in place
  st.waits.push_back({1, 1});
  auto av = ramp(8, 1, 1), cv = ramp(8, 100, 1);
  auto r = sim::simulate(b.p, std::vector{f32_array({2, 4}, av), f32_array({2, 4}, cv)});
  CHECK(r.outputs.empty());
  REQUIRE(r.written_inputs.size() == 1);
  CHECK(r.written_inputs[0].first == "c");
  auto got = values<float>(r.written_inputs[0].second);
  for (size_t i = 0; i < 8; ++i) CHECK(got[i] == 2 * av[i]);
}

TEST_CASE("a missing semaphore gives the wrong answer hardware would") {
  // The compute does not wait for the load: it runs at t=0 on sentinel NaNs.
  Builder b;
  size_t in = b.input("x", DType::float32, {1, 4});
  size_t out = b.output("y", DType::float32, {1, 4});
  auto tile = sbuf(DType::float32, 0, 1, 0, 4), res = sbuf(DType::float32, 0, 1, 64, 4);
  b.add(Engine::Sync, make(Opcode::dma_copy, {tile, b.whole(in)}));
  auto cp = make(Opcode::tensor_copy, {res, tile});
  cp.updates.push_back({1, 1});
  b.add(Engine::Vector, cp);
  auto& st = b.add(Engine::Scalar, make(Opcode::dma_copy, {b.whole(out), res}));
  st.waits.push_back({1, 1});
  auto got = values<uint32_t>(sim::simulate(b.p, std::vector{f32_array({1, 4}, {1, 2, 3, 4})}).outputs[0]);
  for (uint32_t v : got) CHECK(v == 0xffffffffu);
}

TEST_CASE("an output tensor nobody wrote reads back as the sentinel, HBM -> HBM copies work") {
  Builder b;
  size_t in = b.input("x", DType::float32, {2, 3});
  size_t y = b.output("y", DType::float32, {2, 3});
  (void)b.output("z", DType::float32, {3, 2});  // never written
  b.add(Engine::GpSimd, make(Opcode::dma_copy, {b.whole(y), b.whole(in)}));
  auto x = ramp(6, -1, 0.5f);
  auto r = sim::simulate(b.p, std::vector{f32_array({2, 3}, x)});
  REQUIRE(r.outputs.size() == 2);
  CHECK(values<float>(r.outputs[0]) == x);
  CHECK(r.outputs[1].shape == std::vector<int64_t>{3, 2});
  for (uint32_t v : values<uint32_t>(r.outputs[1])) CHECK(v == 0xffffffffu);
  CHECK(r.written_inputs.empty());
}

TEST_CASE("in-place element-wise ops, and a same-partition shifted overlap that reads before writing") {
  const uint32_t P = 3, F = 8;
  auto x = ramp(P * F, 1, 1);
  SUBCASE("dst == data1 (fp32, contiguous)") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto tt = make(Opcode::tensor_tensor, {tx, tx, tx});
    tt.params.op0 = AluOp::multiply;
    k.compute(Engine::Vector, tt);
    k.store("out", tx);
    auto got = values<float>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (size_t i = 0; i < x.size(); ++i) CHECK(got[i] == x[i] * x[i]);
  }
  SUBCASE("dst shifted one element right of data in the same partitions") {
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 0);
    auto src = sbuf(DType::float32, 0, P, 0, F - 1), dst = sbuf(DType::float32, 0, P, 4, F - 1);
    auto ts = make(Opcode::tensor_scalar, {dst, src});
    ts.params.op0 = AluOp::add;
    ts.params.imm0 = 100;
    k.compute(Engine::Vector, ts);
    k.store("out", tx);
    auto got = values<float>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (uint32_t p = 0; p < P; ++p) {
      CHECK(got[p * F] == x[p * F]);
      for (uint32_t j = 1; j < F; ++j) CHECK(got[p * F + j] == x[p * F + j - 1] + 100);
    }
  }
  SUBCASE("strided bf16 operands through the gather/scatter path") {
    Pipeline k;
    (void)k.load("x", DType::float32, P, F, 0);
    auto half = onchip(isa::Memory::SBUF, DType::float32, 0, P, 0, {{2, F / 2}});       // even columns
    auto out = onchip(isa::Memory::SBUF, DType::bfloat16, 0, P, 1024, {{3, F / 2}});   // every third bf16
    auto act = make(Opcode::activation, {out, half});
    act.params.func = isa::ActFunc::square;
    act.params.scale = -2.0f;
    k.compute(Engine::Scalar, act);
    k.store("out", onchip(isa::Memory::SBUF, DType::bfloat16, 0, P, 1024, {{3, F / 2}}));
    auto got = values<uint16_t>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < F / 2; ++j) {
        float v = x[p * F + 2 * j] * -2.0f;
        CHECK(got[p * (F / 2) + j] == bf16_bits(v * v));
      }
  }
}
