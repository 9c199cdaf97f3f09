// test_misaligned_fp32.cpp - simulated memory is byte-addressed: fp32 operands at addresses that are not a
// multiple of 4 (SBUF and PSUM offsets 1, 2, 6, ...) compute exactly what aligned ones compute. The fast
// paths that access memory through float* (sim/view.h direct_f32_rows) must not take them: under UBSan a
// misaligned float load is undefined behaviour (fuzz_run found one in sim/alu.cpp, issue 15).
#include <doctest/doctest.h>

#include <cmath>

#include "te_test_util.h"

using namespace tetest;
using isa::AluOp;

namespace {
// dst = a op b (tensor_tensor on Vector) with a, b, dst at the given SBUF byte offsets.
std::vector<float> tt(int64_t oa, int64_t ob, int64_t od, const std::vector<float>& a, const std::vector<float>& b,
                      uint32_t P, uint32_t F) {
  Pipeline k;
  auto ta = k.load("a", DType::float32, P, F, oa);
  auto tb = k.load("b", DType::float32, P, F, ob);
  auto out = sbuf(DType::float32, 0, P, od, F);
  auto ins = make(Opcode::tensor_tensor, {out, ta, tb});
  ins.params.op0 = AluOp::subtract;
  k.compute(Engine::Vector, ins);
  k.store("out", out);
  return values<float>(k.run({f32_array({P, F}, a), f32_array({P, F}, b)}).outputs[0]);
}
}  // namespace

TEST_CASE("tensor_tensor on fp32 tiles at odd and 2-byte SBUF offsets matches the aligned result") {
  const uint32_t P = 8, F = 40;
  auto a = ramp(P * F, -7.5f, 0.13f), b = ramp(P * F, 3.0f, -0.07f);
  std::vector<float> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] - b[i];
  CHECK(tt(0, 4096, 8192, a, b, P, F) == want);
  CHECK(tt(1, 4098, 8195, a, b, P, F) == want);
  CHECK(tt(6, 4096, 8194, a, b, P, F) == want);  // one misaligned input, misaligned dst
  CHECK(tt(2, 2, 2, a, a, P, F) == std::vector<float>(a.size(), 0.0f));  // dst is the input, in place
}

TEST_CASE("tensor_scalar and a large activation on misaligned fp32 tiles") {
  SUBCASE("tensor_scalar (x * 2) + 1 at offset 3 into offset 1025") {
    const uint32_t P = 4, F = 9;
    auto x = ramp(P * F, -2.0f, 0.3f);
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 3);
    auto out = sbuf(DType::float32, 0, P, 1025, F);
    auto ins = make(Opcode::tensor_scalar, {out, tx});
    ins.params.op0 = AluOp::multiply;
    ins.params.imm0 = 2.0f;
    ins.params.op1 = AluOp::add;
    ins.params.imm1 = 1.0f;
    k.compute(Engine::Vector, ins);
    k.store("out", out);
    auto got = values<float>(k.run({f32_array({P, F}, x)}).outputs[0]);
    for (size_t i = 0; i < x.size(); ++i) CHECK(got[i] == x[i] * 2.0f + 1.0f);
  }
  SUBCASE("activation copy with scale 0.5 on [128, 512] (the threaded path) at offset 2") {
    const uint32_t P = 128, F = 512;
    auto x = ramp(P * F, -100.0f, 0.01f);
    Pipeline k;
    auto tx = k.load("x", DType::float32, P, F, 2);
    auto out = sbuf(DType::float32, 0, P, 2 + 4 * F + 1, F);
    auto ins = make(Opcode::activation, {out, tx});
    ins.params.func = isa::ActFunc::copy;
    ins.params.scale = 0.5f;
    k.compute(Engine::Scalar, ins);
    k.store("out", out);
    auto got = values<float>(k.run({f32_array({P, F}, x)}).outputs[0]);
    size_t bad = 0;
    for (size_t i = 0; i < x.size(); ++i) bad += got[i] != x[i] * 0.5f;
    CHECK(bad == 0);
  }
}

TEST_CASE("matmul into a PSUM tile at byte offset 2 matches the fp32 reference") {
  const uint32_t K = 16, M = 8, N = 24;
  Data s = sample(DType::float32, size_t(K) * M, 7, true), v = sample(DType::float32, size_t(K) * N, 8, true);
  Rig r;
  auto a = r.input(DType::float32, K, M, s.bits);
  auto b = r.input(DType::float32, K, N, v.bits);
  auto d = psum(DType::float32, 0, M, 2, N);
  r.ls(a);
  r.mm(d, b);
  r.result(d);
  auto got = values<float>(r.run().outputs[0]);
  CHECK(got == ref_fp32(s.val, v.val, K, M, N));
}
