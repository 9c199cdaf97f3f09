// test_exec_stt.cpp - scalar_tensor_tensor, activate2 and nc_n_gather: numerics against references computed
// here, edge cases (NaN/inf, 1 and 128 partitions, dtypes), validation errors and closed-form costs.
#include <cmath>

#include "sim/cost.h"
#include "vector_test_util.h"

using namespace vectest;

namespace {
// Independent fp32 references of the ops the tests use.
float ref(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::add: return a + b;
    case AluOp::subtract: return a - b;
    case AluOp::multiply: return mul_rounded(a, b);
    case AluOp::divide: return a / b;
    case AluOp::maximum: return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
    default: FAIL("no reference"); return 0;
  }
}

isa::Instruction& stt(Kernel& k, AccessPattern dst, AccessPattern data, AccessPattern op0, AccessPattern op1,
                      AluOp o0, AluOp o1) {
  auto& ins = k.op(Engine::Vector, Opcode::scalar_tensor_tensor, {dst, data, op0, op1});
  ins.params.op0 = o0;
  ins.params.op1 = o1;
  return ins;
}

double cycles(const isa::Instruction& ins, const char* target, Engine e) {
  auto t = *isa::find_target(target);
  return sim::engine_ns(ins, e, t) * t.engine_ghz(e);
}
}  // namespace

TEST_CASE("scalar_tensor_tensor: (data op0 s) op1 operand1 in fp32, reverse flags, [P,1] and immediate s") {
  for (uint32_t P : {1u, 128u}) {
    CAPTURE(P);
    const uint32_t F = 37;
    auto x = noise(size_t(P) * F, 1, -4, 4), y = noise(size_t(P) * F, 2, -4, 4), s = noise(P, 3, 0.5f, 2);
    x[0] = kNaN;
    x[1] = kInf;
    Kernel k;
    auto tx = k.f32_in(x, P, F), ty = k.f32_in(y, P, F), ts = k.f32_in(s, P, 1);
    auto d1 = k.tile(DType::float32, P, F), d2 = k.tile(DType::float32, P, F), d3 = k.tile(DType::bfloat16, P, F);
    stt(k, d1, tx, ts, ty, AluOp::subtract, AluOp::multiply);
    auto& i2 = stt(k, d2, tx, {}, ty, AluOp::divide, AluOp::subtract);
    i2.params.imm0 = 3.0f;
    i2.params.reverse0 = true;  // 3 / x
    i2.params.reverse1 = true;  // y - (3 / x)
    stt(k, d3, tx, ts, ty, AluOp::add, AluOp::maximum);
    k.out(d1);
    k.out(d2);
    k.out(d3);
    auto r = k.run();
    auto o1 = f32_out(r, 0), o2 = f32_out(r, 1);
    auto o3 = values<uint16_t>(r.outputs[2]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < F; ++j) {
        const size_t i = p * F + j;
        CHECK(same(o1[i], ref(AluOp::multiply, x[i] - s[p], y[i])));
        CHECK(same(o2[i], y[i] - 3.0f / x[i]));
        CHECK(o3[i] == bf16_bits(ref(AluOp::maximum, x[i] + s[p], y[i])));
      }
    if (P == 1) {
      CHECK(std::isnan(o1[0]));
      CHECK(o1[1] == (y[1] > 0 ? kInf : -kInf));
    }
  }
}

TEST_CASE("scalar_tensor_tensor: validation errors") {
  Kernel k;
  auto a = k.f32_in(noise(8, 4), 2, 4), b = k.f32_in(noise(8, 5), 2, 4);
  stt(k, k.tile(DType::float32, 2, 4), a, {}, b, AluOp::bitwise_and, AluOp::add);
  CHECK(k.error() == "scalar_tensor_tensor: op0 must be an arithmetic op, got 'bitwise_and'");
  Kernel k2;
  auto a2 = k2.f32_in(noise(8, 4), 2, 4), b2 = k2.f32_in(noise(8, 5), 2, 4);
  stt(k2, k2.tile(DType::float32, 2, 4), a2, {}, b2, AluOp::add, AluOp::abs);
  CHECK(k2.error() == "scalar_tensor_tensor: op1 must be an arithmetic op, got 'abs'");
  Kernel k3;
  auto a3 = k3.f32_in(noise(8, 4), 2, 4);
  auto p1 = k3.psum_tile(DType::float32, 2, 4), p2 = k3.psum_tile(DType::float32, 2, 4);
  k3.op(Engine::Vector, Opcode::tensor_copy, {p1, a3});
  k3.op(Engine::Vector, Opcode::tensor_copy, {p2, a3});
  stt(k3, k3.tile(DType::float32, 2, 4), p1, {}, p2, AluOp::add, AluOp::add);
  CHECK(k3.error() == "scalar_tensor_tensor: data and operand1 cannot both be in PSUM");
  Kernel k4;
  auto a4 = k4.f32_in(noise(8, 4), 2, 4), b4 = k4.f32_in(noise(6, 5), 2, 3);
  stt(k4, k4.tile(DType::float32, 2, 4), a4, {}, b4, AluOp::add, AluOp::add);
  CHECK(k4.error() ==
        "scalar_tensor_tensor: operand 'operand1' has 2 partitions x 3 elements but 'dst' has 2 partitions x 4 elements");
}

TEST_CASE("scalar_tensor_tensor cost: N for bf16 subtract->multiply with N even, else 2N, MIN_II floor") {
  auto ins = [](DType dt, uint32_t n, AluOp o0, AluOp o1) {
    isa::Instruction i = make(Opcode::scalar_tensor_tensor,
                              {sbuf(dt, 0, 128, 0, n), sbuf(dt, 0, 128, 0, n), {}, sbuf(dt, 0, 128, 4096, n)});
    i.params.op0 = o0;
    i.params.op1 = o1;
    return i;
  };
  for (const char* t : {"trn1", "trn2", "trn3"}) {
    CAPTURE(t);
    CHECK(cycles(ins(DType::bfloat16, 512, AluOp::subtract, AluOp::multiply), t, Engine::Vector) == doctest::Approx(512));
    CHECK(cycles(ins(DType::bfloat16, 511, AluOp::subtract, AluOp::multiply), t, Engine::Vector) == doctest::Approx(1022));
    CHECK(cycles(ins(DType::bfloat16, 512, AluOp::add, AluOp::multiply), t, Engine::Vector) == doctest::Approx(1024));
    CHECK(cycles(ins(DType::float32, 512, AluOp::subtract, AluOp::multiply), t, Engine::Vector) == doctest::Approx(1024));
    CHECK(cycles(ins(DType::bfloat16, 20, AluOp::subtract, AluOp::multiply), t, Engine::Vector) == doctest::Approx(64));  // MIN_II
    CHECK(cycles(ins(DType::float32, 20, AluOp::add, AluOp::add), t, Engine::Vector) == doctest::Approx(64));
  }
}

TEST_CASE("scalar_tensor_tensor cost: N when one of data / operand1 is in PSUM (the streams use different memories)") {
  using isa::Memory;
  auto ins = [](Memory data_mem, Memory b_mem) {
    auto ap = [](Memory m, uint32_t off) {
      AccessPattern a = sbuf(DType::float32, 0, 128, off, 512);
      a.mem = m;
      return a;
    };
    isa::Instruction i = make(Opcode::scalar_tensor_tensor,
                              {sbuf(DType::bfloat16, 0, 128, 0, 512), ap(data_mem, 0), {}, ap(b_mem, 4096)});
    i.params.op0 = AluOp::multiply;
    i.params.op1 = AluOp::multiply;
    return i;
  };
  for (const char* t : {"trn1", "trn2", "trn3"}) {
    CAPTURE(t);
    CHECK(cycles(ins(Memory::SBUF, Memory::PSUM), t, Engine::Vector) == doctest::Approx(512));
    CHECK(cycles(ins(Memory::PSUM, Memory::SBUF), t, Engine::Vector) == doctest::Approx(512));
    CHECK(cycles(ins(Memory::SBUF, Memory::SBUF), t, Engine::Vector) == doctest::Approx(1024));
  }
}

TEST_CASE("activate2: multiply-add, reverse flags, prelu slope, exp, and the ScalarE accumulator ops") {
  for (uint32_t P : {1u, 128u}) {
    CAPTURE(P);
    const uint32_t F = 24;
    auto x = noise(size_t(P) * F, 7, -3, 3), a = noise(P, 8, 0.5f, 1.5f);
    x[2] = kInf;
    Kernel k;
    k.target = "trn3";
    auto tx = k.f32_in(x, P, F), ta = k.f32_in(a, P, 1);
    auto d1 = k.tile(DType::float32, P, F), d2 = k.tile(DType::float32, P, F), d3 = k.tile(DType::float32, P, F);
    auto r1 = k.tile(DType::float32, P, 1), r2 = k.tile(DType::float32, P, 1), r3 = k.tile(DType::float32, P, 1);
    // d1 = prelu(x * a - 0.25, 0.1); accumulate max
    auto& i1 = k.op(Engine::Scalar, Opcode::activate2, {d1, tx, ta, {}});
    i1.params.func = isa::ActFunc::prelu;
    i1.params.op0 = AluOp::multiply;
    i1.params.op1 = AluOp::subtract;
    i1.params.imm1 = 0.25f;
    i1.params.relu_param = 0.1f;
    i1.params.reduce_op = AluOp::maximum;
    i1.params.reduce_cmd = ReduceCmd::reset_reduce;
    k.op(Engine::Scalar, Opcode::act_read_accumulator, {r1});
    // d2 = exp(2 - x) (reverse0 with subtract); accumulate sum
    auto& i2 = k.op(Engine::Scalar, Opcode::activate2, {d2, tx, {}, {}});
    i2.params.func = isa::ActFunc::exp;
    i2.params.op0 = AluOp::subtract;
    i2.params.imm0 = 2.0f;
    i2.params.reverse0 = true;
    i2.params.reduce_op = AluOp::add;
    i2.params.reduce_cmd = ReduceCmd::reset_reduce;
    k.op(Engine::Scalar, Opcode::act_read_accumulator, {r2});
    // d3 = x (bypass, bypass, copy); abs_min accumulator, reset identity is +inf
    auto& i3 = k.op(Engine::Scalar, Opcode::activate2, {d3, tx, {}, {}});
    i3.params.func = isa::ActFunc::copy;
    i3.params.reduce_op = AluOp::abs_min;
    i3.params.reduce_cmd = ReduceCmd::reset_reduce;
    k.op(Engine::Scalar, Opcode::act_read_accumulator, {r3});
    for (auto t : {d1, d2, d3, r1, r2, r3}) k.out(t);
    auto r = k.run();
    auto o1 = f32_out(r, 0), o2 = f32_out(r, 1), o3 = f32_out(r, 2);
    auto m1 = f32_out(r, 3), s2 = f32_out(r, 4), a3 = f32_out(r, 5);
    for (uint32_t p = 0; p < P; ++p) {
      float mx = -kInf, sum = 0.0f, amin = kInf;
      for (uint32_t j = 0; j < F; ++j) {
        const size_t i = p * F + j;
        const float v = mul_rounded(x[i], a[p]) - 0.25f;
        const float e1 = v > 0 ? v : mul_rounded(0.1f, v);
        CHECK(same(o1[i], e1));
        mx = std::max(mx, e1);
        const float e2 = std::exp(2.0f - x[i]);
        CHECK(same(o2[i], e2));
        sum += e2;
        CHECK(same(o3[i], x[i]));
        if (std::fabs(x[i]) <= std::fabs(amin)) amin = x[i];  // ties -> the new value (b)
      }
      CHECK(m1[p] == mx);
      CHECK(s2[p] == sum);
      CHECK(a3[p] == amin);
    }
  }
}

TEST_CASE("activate2: trn3 only, op pairs, reduce_op and load_reduce are checked") {
  auto run = [](const char* target, AluOp o0, AluOp o1, AluOp rop, ReduceCmd cmd) {
    Kernel k;
    k.target = target;
    auto x = k.f32_in(noise(8, 9), 2, 4);
    auto& i = k.op(Engine::Scalar, Opcode::activate2, {k.tile(DType::float32, 2, 4), x, {}, {}});
    i.params.op0 = o0;
    i.params.op1 = o1;
    i.params.reduce_op = rop;
    i.params.reduce_cmd = cmd;
    return k.error();
  };
  CHECK(run("trn3", AluOp::multiply, AluOp::add, AluOp::add, ReduceCmd::idle) == "");
  CHECK(run("trn2", AluOp::multiply, AluOp::add, AluOp::add, ReduceCmd::idle) ==
        "activate2: not available on trn2 (trn3 only)");
  CHECK(run("trn3", AluOp::add, AluOp::multiply, AluOp::add, ReduceCmd::idle) ==
        "activate2: (op0, op1) = (add, multiply) is not supported; allowed: (multiply, add), (multiply, subtract), "
        "(multiply, bypass), (add, bypass), (subtract, bypass), (bypass, bypass)");
  CHECK(run("trn3", AluOp::bypass, AluOp::add, AluOp::add, ReduceCmd::idle).find("(bypass, add) is not supported") !=
        std::string::npos);
  CHECK(run("trn3", AluOp::bypass, AluOp::bypass, AluOp::multiply, ReduceCmd::reduce) ==
        "activate2: reduce_op must be add, maximum, minimum, abs_max or abs_min, got 'multiply'");
  CHECK(run("trn3", AluOp::bypass, AluOp::bypass, AluOp::add, ReduceCmd::load_reduce) ==
        "activate2: reduce_cmd load_reduce is not supported by activate2 (no initial value)");
}

TEST_CASE("nc_n_gather: per-partition gather over the flattened free dims, raw copy, out of range is an error") {
  for (uint32_t P : {1u, 128u}) {
    CAPTURE(P);
    const uint32_t F = 600, N = 700;  // N > 512: two ISA instructions' worth
    std::vector<uint16_t> data(size_t(P) * F);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint16_t(i * 7919u);
    std::vector<uint32_t> idx(size_t(P) * N);
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = uint32_t((i * 2654435761u) % F);
    Kernel k;
    auto td = k.raw_in(DType::bfloat16, data, P, F);
    auto ti = k.raw_in(DType::uint32, idx, P, N);
    auto d = k.tile(DType::bfloat16, P, N);
    k.op(Engine::GpSimd, Opcode::nc_n_gather, {d, td, ti});
    k.out(d);
    auto r = k.run();
    auto o = values<uint16_t>(r.outputs[0]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < N; ++j) CHECK(o[p * N + j] == data[p * F + idx[p * N + j]]);
  }
  Kernel k;
  auto td = k.f32_in(noise(8, 1), 2, 4);
  auto ti = k.raw_in(DType::uint32, std::vector<uint32_t>{0, 1, 2, 3, 3, 2, 4, 0}, 2, 4);
  k.op(Engine::GpSimd, Opcode::nc_n_gather, {k.tile(DType::float32, 2, 4), td, ti});
  CHECK(k.error() == "nc_n_gather: indices[1, 2] = 4 is outside [0, 4) (the flattened free size of data)");
  Kernel k2;
  auto td2 = k2.f32_in(noise(8, 1), 2, 4);
  auto ti2 = k2.raw_in(DType::int32, std::vector<int32_t>{0, 1, 2, 3, 3, 2, 1, 0}, 2, 4);
  k2.op(Engine::GpSimd, Opcode::nc_n_gather, {k2.tile(DType::float32, 2, 4), td2, ti2});
  CHECK(k2.error() == "nc_n_gather: indices must be uint32, got int32");
  Kernel k3;
  auto td3 = k3.f32_in(noise(8, 1), 2, 4);
  auto ti3 = k3.raw_in(DType::uint32, std::vector<uint32_t>{0, 1, 2, 3, 3, 2, 1, 0}, 2, 4);
  k3.op(Engine::GpSimd, Opcode::nc_n_gather, {k3.tile(DType::bfloat16, 2, 4), td3, ti3});
  CHECK(k3.error() == "nc_n_gather: dst dtype bfloat16 differs from data dtype float32 (a gather copies raw elements)");
}

TEST_CASE("nc_n_gather cost: ceil(N / 512) x GPSIMD_START + N GpSimd cycles") {
  auto ins = [](uint32_t n) {
    return make(Opcode::nc_n_gather,
                {sbuf(DType::float32, 0, 128, 0, n), sbuf(DType::float32, 0, 128, 8192, 64),
                 sbuf(DType::uint32, 0, 128, 16384, n)});
  };
  for (const char* t : {"trn1", "trn2", "trn3"}) {
    CAPTURE(t);
    CHECK(cycles(ins(1), t, Engine::GpSimd) == doctest::Approx(150 + 1));
    CHECK(cycles(ins(512), t, Engine::GpSimd) == doctest::Approx(150 + 512));
    CHECK(cycles(ins(513), t, Engine::GpSimd) == doctest::Approx(2 * 150 + 513));
    CHECK(cycles(ins(2048), t, Engine::GpSimd) == doctest::Approx(4 * 150 + 2048));
  }
}
