// test_alu_rows.cpp - the 2-D element-wise ALU forms used by the tensor_scalar / tensor_tensor fast paths
// (docs/performance.md, case (c)) give the bits of the plain per-row loops: the fused two-op tensor_scalar
// (alu_ts2_f32_rows) against op0 then op1 row by row, for every float op pair, both operand orders, per-row
// columns and immediates, forward and backward (negative strides) and in place; maximum / minimum rows with
// and without NaNs against alu_tt_f32; every op with dst disjoint from, equal to either or both inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isa/dtype.h"
#include "sim/alu.h"
#include "float_test_util.h"
#include "sim_test_util.h"

using namespace nkisim;
using floattest::random_values;
using floattest::same_bits_or_both_nan;

TEST_CASE("alu_ts2_f32_rows equals op0 then op1 per row (all float op pairs, reversed operands, columns, both directions)") {
  const uint32_t P = 6;
  const size_t n = 37;
  const ptrdiff_t stride = 41;
  const auto a0 = random_values(P * size_t(stride), 21, 0.1);
  const auto col0 = random_values(P, 22, 0.2), col1 = random_values(P, 23, 0.2);
  for (int o0 = 0; o0 <= int(isa::AluOp::relu); ++o0)
    for (int o1 = 0; o1 <= int(isa::AluOp::relu); ++o1) {
      const auto op0 = isa::AluOp(o0), op1 = isa::AluOp(o1);
      if (sim::alu_is_bitvec(op0) || sim::alu_is_bitvec(op1)) continue;
      const std::string name = std::string(isa::alu_name(op0)) + "," + std::string(isa::alu_name(op1));
      CAPTURE(name);
      for (int variant = 0; variant < 8; ++variant) {
        const bool rev0 = variant & 1, rev1 = variant & 2, column = variant & 4;
        CAPTURE(variant);
        // Reference: row by row, op0 into the row, then op1 in place (op1 == bypass: one op).
        std::vector<float> ref(P * size_t(stride), 0.0f);
        for (uint32_t i = 0; i < P; ++i) {
          float* y = ref.data() + i * stride;
          sim::alu_ts_f32(op0, a0.data() + i * stride, column ? col0[i] : 0.75f, rev0, y, n);
          if (op1 != isa::AluOp::bypass) sim::alu_ts_f32(op1, y, column ? col1[i] : -1.5f, rev1, y, n);
        }
        const sim::TsOp t0{op0, column ? col0.data() : nullptr, 0.75f, rev0};
        const sim::TsOp t1{op1, column ? col1.data() : nullptr, -1.5f, rev1};
        // Forward, out of place.
        std::vector<float> fwd(P * size_t(stride), 0.0f);
        sim::alu_ts2_f32_rows(t0, t1, 1, a0.data(), stride, fwd.data(), stride, n, P);
        CHECK(same_bits_or_both_nan(fwd, ref));
        // Backward (last row first, negative strides), in place.
        std::vector<float> ip = a0;
        const ptrdiff_t last = ptrdiff_t(P) - 1;
        sim::TsOp b0 = t0, b1 = t1;
        if (column) {
          b0.s = col0.data() + last;
          b1.s = col1.data() + last;
        }
        sim::alu_ts2_f32_rows(b0, b1, -1, ip.data() + last * stride, -stride, ip.data() + last * stride, -stride, n, P);
        for (uint32_t i = 0; i < P; ++i)  // the gaps between rows keep the input
          for (ptrdiff_t j = ptrdiff_t(n); j < stride; ++j) ref[i * stride + j] = a0[i * stride + j];
        CHECK(same_bits_or_both_nan(ip, ref));
      }
    }
}

TEST_CASE("alu_tt_f32_rows maximum / minimum: rows with and without NaNs give alu_tt_f32's bits, either direction") {
  const uint32_t P = 8;
  const size_t n = 64;
  const ptrdiff_t stride = 80;
  auto a0 = random_values(P * size_t(stride), 31, 0.0), b0 = random_values(P * size_t(stride), 32, 0.0);
  // Signed zeros and ties (no NaN) in row 1; a NaN in row 3 of a and row 5 of b; infinities in row 6.
  a0[1 * stride + 3] = 0.0f;
  b0[1 * stride + 3] = -0.0f;
  a0[1 * stride + 4] = -0.0f;
  b0[1 * stride + 4] = 0.0f;
  a0[1 * stride + 5] = b0[1 * stride + 5] = 2.5f;
  a0[3 * stride + 63] = isa::bits_to_float(0x7fc00123u);
  b0[5 * stride] = isa::bits_to_float(0xffa00000u);
  a0[6 * stride + 7] = std::numeric_limits<float>::infinity();
  b0[6 * stride + 8] = -std::numeric_limits<float>::infinity();
  for (auto op : {isa::AluOp::maximum, isa::AluOp::minimum}) {
    CAPTURE(std::string(isa::alu_name(op)));
    std::vector<float> ref = a0;
    for (uint32_t i = 0; i < P; ++i) sim::alu_tt_f32(op, ref.data() + i * stride, b0.data() + i * stride, ref.data() + i * stride, n);
    std::vector<float> fwd = a0, bwd = a0;
    sim::alu_tt_f32_rows(op, fwd.data(), stride, b0.data(), stride, fwd.data(), stride, n, P);
    const ptrdiff_t last = ptrdiff_t(P - 1) * stride;
    sim::alu_tt_f32_rows(op, bwd.data() + last, -stride, b0.data() + last, -stride, bwd.data() + last, -stride, n, P);
    CHECK(same_bits_or_both_nan(fwd, ref));
    CHECK(same_bits_or_both_nan(bwd, ref));
    // The exact values: the NaN rows propagate NaN, the signed-zero ties pick b (eval_f32: a > b ? a : b).
    CHECK(std::isnan(fwd[3 * stride + 63]));
    CHECK(std::isnan(fwd[5 * stride]));
    CHECK(isa::float_to_bits(fwd[1 * stride + 3]) == 0x80000000u);
    CHECK(isa::float_to_bits(fwd[1 * stride + 4]) == 0x00000000u);
    CHECK(fwd[6 * stride + 7] == (op == isa::AluOp::maximum ? std::numeric_limits<float>::infinity() : b0[6 * stride + 7]));
  }
}

TEST_CASE("tensor_scalar / tensor_tensor fast paths: consecutive instructions (alternating row order) give the goldens") {
  // Four fp32 instructions in a row on one engine: the fast paths walk rows forward and backward in turn
  // (sim/exec_elementwise.cpp), so each of these runs in both orders across the two subcases' programs
  // (the second program starts with the opposite order because of the extra first instruction).
  const uint32_t P = 8, F = 5;
  const auto x = simtest::ramp(P * F, -3.05f, 0.17f);  // no zeros, no NaNs
  const std::vector<float> s0 = {1.5f, -2.0f, 0.25f, 3.0f, -0.75f, 8.0f, 0.5f, -1.25f};
  const std::vector<float> s1 = {10.0f, -20.0f, 30.0f, 0.0f, -0.5f, 7.25f, 1.0f, 2.0f};
  for (bool extra_first : {false, true}) {
    CAPTURE(extra_first);
    simtest::Pipeline k;
    auto tx = k.load("x", isa::DType::float32, P, F, 0);
    auto t0 = k.load("s0", isa::DType::float32, P, 1, 512);
    auto t1 = k.load("s1", isa::DType::float32, P, 1, 520);
    auto y1 = simtest::sbuf(isa::DType::float32, 0, P, 1024, F), y2 = simtest::sbuf(isa::DType::float32, 0, P, 2048, F);
    auto scratch = simtest::sbuf(isa::DType::float32, 0, P, 3072, F);
    if (extra_first) {  // shifts the row order of everything after it
      auto ins = simtest::make(isa::Opcode::tensor_scalar, {scratch, tx});
      ins.params.op0 = isa::AluOp::add;
      k.compute(isa::Engine::Vector, ins);
    }
    auto fused = simtest::make(isa::Opcode::tensor_scalar, {y1, tx, t0, t1});  // (x * s0) + s1, one pass
    fused.params.op0 = isa::AluOp::multiply;
    fused.params.op1 = isa::AluOp::add;
    k.compute(isa::Engine::Vector, fused);
    auto rows = simtest::make(isa::Opcode::tensor_scalar, {y2, tx, t0, t1});  // s1 - (s0 / x), row by row
    rows.params.op0 = isa::AluOp::divide;
    rows.params.reverse0 = true;
    rows.params.op1 = isa::AluOp::subtract;
    rows.params.reverse1 = true;
    k.compute(isa::Engine::Vector, rows);
    auto mx = simtest::make(isa::Opcode::tensor_tensor, {y1, y1, y2});  // in place
    mx.params.op0 = isa::AluOp::maximum;
    k.compute(isa::Engine::Vector, mx);
    auto mn = simtest::make(isa::Opcode::tensor_tensor, {y2, y2, tx});
    mn.params.op0 = isa::AluOp::minimum;
    k.compute(isa::Engine::Vector, mn);
    k.store("y1", y1);
    k.store("y2", y2);
    auto r = k.run({simtest::f32_array({P, F}, x), simtest::f32_array({P, 1}, s0), simtest::f32_array({P, 1}, s1)});
    REQUIRE(r.outputs.size() == 2);
    const auto g1 = simtest::values<float>(r.outputs[0]), g2 = simtest::values<float>(r.outputs[1]);
    for (uint32_t p = 0; p < P; ++p)
      for (uint32_t j = 0; j < F; ++j) {
        const float xv = x[p * F + j];
        const float a = xv * s0[p] + s1[p], b = s1[p] - s0[p] / xv;
        CHECK(isa::float_to_bits(g1[p * F + j]) == isa::float_to_bits(a > b ? a : b));
        CHECK(isa::float_to_bits(g2[p * F + j]) == isa::float_to_bits(b < xv ? b : xv));
      }
  }
}

TEST_CASE("alu_tt_f32_rows, every op: dst disjoint, dst = data1, dst = data2 and all three the same give alu_f32's bits") {
  const uint32_t P = 4;
  const size_t n = 67;  // a vector tail
  const ptrdiff_t stride = 72;
  const auto a0 = random_values(P * size_t(stride), 41, 0.15), b0 = random_values(P * size_t(stride), 42, 0.15);
  const isa::AluOp ops[] = {
#define ALU(id, name, cls, red) isa::AluOp::id,
#include "isa/alu_ops.def"
#undef ALU
  };
  for (isa::AluOp op : ops) {
    CAPTURE(std::string(isa::alu_name(op)));
    auto golden = [&](const std::vector<float>& x, const std::vector<float>& y) {
      std::vector<float> g = x;
      for (uint32_t i = 0; i < P; ++i)
        for (size_t j = 0; j < n; ++j) g[i * stride + j] = sim::alu_f32(op, x[i * stride + j], y[i * stride + j]);
      return g;
    };
    std::vector<float> out(a0.size(), 0.0f), xa = a0, yb = b0, same = a0;
    sim::alu_tt_f32_rows(op, a0.data(), stride, b0.data(), stride, out.data(), stride, n, P);
    sim::alu_tt_f32_rows(op, xa.data(), stride, b0.data(), stride, xa.data(), stride, n, P);  // into data1
    sim::alu_tt_f32_rows(op, a0.data(), stride, yb.data(), stride, yb.data(), stride, n, P);  // into data2
    sim::alu_tt_f32_rows(op, same.data(), stride, same.data(), stride, same.data(), stride, n, P);
    std::vector<float> g = golden(a0, b0), g_out(a0.size(), 0.0f), g_yb = b0;
    for (uint32_t i = 0; i < P; ++i)
      for (size_t j = 0; j < n; ++j) g_out[i * stride + j] = g_yb[i * stride + j] = g[i * stride + j];
    CHECK(same_bits_or_both_nan(out, g_out));
    CHECK(same_bits_or_both_nan(xa, g));
    CHECK(same_bits_or_both_nan(yb, g_yb));
    CHECK(same_bits_or_both_nan(same, golden(a0, a0)));
  }
}

TEST_CASE("alu_ts_f32_rows, every op: dst disjoint and in place, immediate and per-row scalars, both operand orders") {
  const uint32_t P = 4;
  const size_t n = 67;
  const ptrdiff_t stride = 72;
  const auto a0 = random_values(P * size_t(stride), 51, 0.15), col = random_values(P, 52, 0.25);
  const isa::AluOp ops[] = {
#define ALU(id, name, cls, red) isa::AluOp::id,
#include "isa/alu_ops.def"
#undef ALU
  };
  for (isa::AluOp op : ops)
    for (bool reverse : {false, true})
      for (bool per_row : {false, true}) {
        CAPTURE(std::string(isa::alu_name(op)));
        CAPTURE(reverse);
        CAPTURE(per_row);
        const float imm = -1.75f;
        const bool rev = reverse && !sim::alu_is_unary(op);
        std::vector<float> g(a0.size(), 0.0f), g_in = a0;
        for (uint32_t i = 0; i < P; ++i)
          for (size_t j = 0; j < n; ++j) {
            const float x = a0[i * stride + j], c = per_row ? col[i] : imm;
            g[i * stride + j] = g_in[i * stride + j] = rev ? sim::alu_f32(op, c, x) : sim::alu_f32(op, x, c);
          }
        std::vector<float> out(a0.size(), 0.0f), in = a0;
        const float* s = per_row ? col.data() : nullptr;
        sim::alu_ts_f32_rows(op, a0.data(), stride, s, imm, reverse, out.data(), stride, n, P);
        sim::alu_ts_f32_rows(op, in.data(), stride, s, imm, reverse, in.data(), stride, n, P);
        CHECK(same_bits_or_both_nan(out, g));
        CHECK(same_bits_or_both_nan(in, g_in));
      }
}
