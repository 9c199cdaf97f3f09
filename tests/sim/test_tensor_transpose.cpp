// test_tensor_transpose.cpp - Tensor Engine and Vector Engine transposes (bit-exactness, trn1's fp32 path,
// the transpose mode of multiply_moving) and the Tensor Engine cost closed forms and back-to-back timing.
#include <doctest/doctest.h>

#include "sim/cost.h"
#include "te_test_util.h"

using namespace tetest;

TEST_CASE("nc_transpose_pe: bit-exact on trn2 and trn3 for every dtype, NaN payloads and -0.0 included") {
  for (const char* target : {"trn2", "trn3"})
    for (DType t : {DType::float32, DType::bfloat16, DType::float16, DType::float8_e4m3, DType::int8, DType::int32}) {
      for (auto [P, F] : {std::pair<uint32_t, uint32_t>{128, 128}, {5, 77}, {1, 1}}) {
        CAPTURE(target);
        CAPTURE(isa::dtype_name(t));
        CAPTURE(P);
        auto in = special_bits(t, size_t(P) * F, 31 + P);
        Rig r;
        auto a = r.input(t, P, F, in);
        auto d = psum(t, 0, F, 0, P);
        r.tensor(make(Opcode::nc_transpose_pe, {d, a}));
        r.result(d);
        auto got = bits_of(r.run(target).outputs.at(0));
        size_t bad = 0;
        for (uint32_t f = 0; f < F; ++f)
          for (uint32_t p = 0; p < P; ++p) bad += got[f * P + p] != in[p * F + f];
        CHECK(bad == 0);
      }
    }
}

TEST_CASE("nc_transpose_pe on trn1: an fp32 identity matmul (an inf/NaN poisons its output row, -0 -> +0)") {
  const uint32_t P = 4, F = 3;
  const float inf = INFINITY;
  // data[p][f]; column f=1 holds an inf, column f=2 a -0.0
  std::vector<float> x = {1.5f, 2.0f, -0.0f, -3.0f, inf, 0.25f, 7.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f};
  std::vector<uint32_t> bits;
  for (float f : x) bits.push_back(bf16_bits(f));
  Rig r;
  auto a = r.input(DType::bfloat16, P, F, bits);
  auto d = psum(DType::bfloat16, 0, F, 0, P);
  r.tensor(make(Opcode::nc_transpose_pe, {d, a}));
  r.result(d);
  auto got = bits_of(r.run("trn1").outputs.at(0));
  for (uint32_t p = 0; p < P; ++p) CHECK(got[0 * P + p] == bits[p * F + 0]);  // finite column: exact
  for (uint32_t p = 0; p < P; ++p)  // inf * 0 = NaN everywhere but at the inf itself
    CHECK((p == 1 ? got[1 * P + p] == bits[1 * F + 1] : std::isnan(bf16_value(uint16_t(got[1 * P + p])))));
  CHECK(got[2 * P + 0] == 0u);  // -0.0 + 0 = +0.0
  CHECK(got[2 * P + 1] == bits[1 * F + 2]);
}

TEST_CASE("nc_transpose_pe leaves its data loaded as the stationary") {
  const uint32_t P = 8, F = 4;
  Data s = sample(DType::bfloat16, P * F, 41, true), v = sample(DType::bfloat16, P * 16, 42, true);
  Rig r;
  auto a = r.input(DType::bfloat16, P, F, s.bits), b = r.input(DType::bfloat16, P, 16, v.bits);
  r.tensor(make(Opcode::nc_transpose_pe, {psum(DType::bfloat16, 0, F, 0, P), a}));
  auto d = psum(DType::float32, 0, F, 2048, 16);
  r.mm(d, b);
  r.result(d);
  auto got = values<float>(r.run().outputs.at(0));
  auto want = ref_double(s.val, v.val, P, F, 16);
  for (size_t i = 0; i < want.size(); ++i) CHECK(double(got[i]) == want[i]);
}

TEST_CASE("nc_transpose_ve: 32x32 blocks, bit-exact, SBUF and PSUM") {
  for (auto [P, F] : {std::pair<uint32_t, uint32_t>{32, 32}, {3, 17}}) {
    auto in = special_bits(DType::float32, size_t(P) * F, 51);
    Rig r;
    auto a = r.input(DType::float32, P, F, in);
    auto d = sbuf(DType::float32, 0, F, 1 << 16, P);
    auto d2 = psum(DType::float32, 0, F, 0, P);
    r.tensor(make(Opcode::nc_transpose_ve, {d, a}), Engine::Vector);
    r.tensor(make(Opcode::nc_transpose_ve, {d2, a}), Engine::Vector);
    r.result(d);
    r.result(d2);
    auto res = r.run();
    for (int o = 0; o < 2; ++o) {
      auto got = bits_of(res.outputs.at(size_t(o)));
      size_t bad = 0;
      for (uint32_t f = 0; f < F; ++f)
        for (uint32_t p = 0; p < P; ++p) bad += got[f * P + p] != in[p * F + f];
      CHECK(bad == 0);
    }
  }
  Rig r;
  auto a = r.input(DType::float32, 64, 8, std::vector<uint32_t>(512, 0));
  r.tensor(make(Opcode::nc_transpose_ve, {sbuf(DType::float32, 0, 8, 1 << 16, 64), a}), Engine::Vector);
  CHECK(run_error(r) == "nc_transpose_ve: data is 64 x 8; the Vector Engine transposes at most 32 x 32");
}

TEST_CASE("multiply_moving transpose mode: bit-exact selection by an identity or permutation moving") {
  const uint32_t K = 16, M = 8;
  auto in = special_bits(DType::bfloat16, K * M, 61);
  std::vector<uint32_t> ident(K * K, 0), perm(K * K, 0);
  for (uint32_t k = 0; k < K; ++k) {
    ident[k * K + k] = bf16_bits(1.0f);
    perm[((k * 5) % K) * K + k] = bf16_bits(1.0f);  // column k selects row 5k mod 16
  }
  Rig r;
  auto a = r.input(DType::bfloat16, K, M, in);
  auto i = r.input(DType::bfloat16, K, K, ident), q = r.input(DType::bfloat16, K, K, perm);
  auto d1 = psum(DType::bfloat16, 0, M, 0, K), d2 = psum(DType::bfloat16, 0, M, 2048, K);
  r.ls(a);
  r.mm(d1, i).params.transpose = true;
  r.mm(d2, q).params.transpose = true;
  r.result(d1);
  r.result(d2);
  auto res = r.run();
  auto g1 = bits_of(res.outputs.at(0)), g2 = bits_of(res.outputs.at(1));
  size_t bad = 0;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < K; ++n) {
      bad += g1[m * K + n] != in[n * M + m];
      bad += g2[m * K + n] != in[((n * 5) % K) * M + m];
    }
  CHECK(bad == 0);
  // Anything but zeros and ones (at most one 1 per column) is rejected.
  Rig e;
  auto ea = e.input(DType::bfloat16, 2, 2, {0, 0, 0, 0});
  auto eb = e.input(DType::bfloat16, 2, 2, {bf16_bits(1.0f), 0, bf16_bits(2.0f), bf16_bits(1.0f)});
  e.ls(ea);
  e.mm(psum(DType::bfloat16, 0, 2, 0, 2), eb).params.transpose = true;
  CHECK(run_error(e) ==
        "multiply_moving: transpose mode needs a moving operand of zeros and ones with at most one 1 per column (an "
        "identity); column 0 has the value 2 at row 1");
}

// ---- costs -------------------------------------------------------------------------------------------

namespace {
double cost(const isa::Instruction& ins, const char* target) {
  return sim::engine_ns(ins, Engine::Tensor, *isa::find_target(target));
}
}  // namespace

TEST_CASE("Tensor Engine costs: closed forms in TensorE cycles") {
  for (const char* target : {"trn1", "trn2", "trn3"}) {
    CAPTURE(target);
    const double ghz = isa::find_target(target)->tensor_ghz;
    for (uint32_t M : {1u, 32u, 64u, 100u, 128u})
      for (uint32_t N : {1u, 50u, 64u, 128u, 512u})
        for (DType t : {DType::bfloat16, DType::float8_e4m3, DType::float32}) {
          CAPTURE(M);
          CAPTURE(N);
          const double f32 = t == DType::float32 ? 4 : 1;
          auto mm = make(Opcode::multiply_moving, {psum(DType::float32, 0, M, 0, N), sbuf(t, 0, 128, 0, N)});
          CHECK(cost(mm, target) == doctest::Approx(f32 * std::max(std::min(64.0, double(M)), double(N)) / ghz));
          auto ls = make(Opcode::load_stationary, {sbuf(t, 0, 128, 0, M)});
          CHECK(cost(ls, target) == doctest::Approx(f32 * std::ceil(std::max(64.0, double(M)) / 4) / ghz));
          auto tp = make(Opcode::nc_transpose_pe, {psum(t, 0, M, 0, N), sbuf(t, 0, N, 0, M)});
          const double tf32 = t == DType::float32 ? (std::string(target) == "trn1" ? 4 : 2) : 1;
          CHECK(cost(tp, target) == doctest::Approx(tf32 * std::max(double(N), std::min(64.0, double(M))) / ghz));
        }
  }
  // LS of a 128-column stationary: 128 / 4 = 32 cycles (PERF worked example); MM 128 x 512: 512 cycles.
  CHECK(cost(make(Opcode::load_stationary, {sbuf(DType::bfloat16, 0, 128, 0, 128)}), "trn2") ==
        doctest::Approx(32 / 2.4));
  // double_row: N per half, so FP8 K=256 costs what a BF16 K=128 pass does.
  auto mm =
      make(Opcode::multiply_moving, {psum(DType::float32, 0, 128, 0, 512), sbuf(DType::float8_e4m3, 0, 128, 0, 1024)});
  mm.params.double_row = true;
  CHECK(cost(mm, "trn2") == doctest::Approx(512 / 2.4));
  // transpose mode of fp32 data: x2 on trn2+ instead of x4.
  auto tm = make(Opcode::multiply_moving, {psum(DType::float32, 0, 128, 0, 128), sbuf(DType::float32, 0, 128, 0, 128)});
  tm.params.transpose = true;
  CHECK(cost(tm, "trn2") == doctest::Approx(2 * 128 / 2.4));
  CHECK(cost(tm, "trn1") == doctest::Approx(4 * 128 / 2.8));
}

TEST_CASE("Tensor Engine timing: back-to-back multiplies issue every max(min(64, M), N) cycles") {
  struct Case {
    uint32_t M, N;
    DType t;
  };
  for (Case c : {Case{128, 512, DType::bfloat16}, Case{128, 1, DType::bfloat16}, Case{16, 32, DType::bfloat16},
                 Case{128, 128, DType::float32}}) {
    CAPTURE(c.M);
    CAPTURE(c.N);
    const uint32_t K = 128;
    Rig r;
    auto a = r.input(c.t, K, c.M, std::vector<uint32_t>(K * c.M, 0));
    auto b = r.input(c.t, K, c.N, std::vector<uint32_t>(K * c.N, 0));
    r.ls(a);
    for (int i = 0; i < 4; ++i) r.mm(psum(DType::float32, 0, c.M, 2048 * i, c.N), b);
    sim::Options o;
    o.target = trn2();
    o.target->pe_throttle = 0;  // the unthrottled cost (throttling: test_timing_pe.cpp)
    o.timeline = true;
    auto res = r.k.run(r.inputs, o);
    const uint32_t base = res.instr_base[int(Engine::Tensor)];
    const double ii = (c.t == DType::float32 ? 4 : 1) * std::max(std::min(64.0, double(c.M)), double(c.N)) / 2.4;
    for (int i = 2; i <= 4; ++i)
      CHECK(res.timeline[base + i].start_ns - res.timeline[base + i - 1].start_ns == doctest::Approx(ii));
  }
}
