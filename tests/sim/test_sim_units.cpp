// test_sim_units.cpp - unit tests below the executors: conversions, view normalisation, ALU and activation bodies.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sim/activation.h"
#include "sim/alu.h"
#include "sim/convert.h"
#include "sim/view.h"
#include "sim_test_util.h"

using namespace simtest;
using isa::AluOp;
using sim::View;

TEST_CASE("bf16 and fp32 fast paths are bit-identical to isa::to_f32 / isa::from_f32") {
  std::mt19937 rng(1234);
  std::vector<float> in;
  for (uint32_t b : {0u, 0x80000000u, 1u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x7f7f8000u, 0x7f7f7fffu,
                     0x7f800000u, 0xff800000u, 0x3f808000u, 0x3f818000u, 0x7fc00000u, 0x7fa00001u, 0xffffffffu})
    in.push_back(isa::bits_to_float(b));
  for (int i = 0; i < 20000; ++i) in.push_back(isa::bits_to_float(uint32_t(rng())));
  std::vector<uint16_t> out(in.size());
  sim::store_f32(DType::bfloat16, reinterpret_cast<uint8_t*>(out.data()), 2, in.size(), in.data());
  for (size_t i = 0; i < in.size(); ++i) {
    CAPTURE(isa::float_to_bits(in[i]));
    CHECK(out[i] == isa::from_f32(DType::bfloat16, in[i]));
  }
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = uint16_t(i);
  std::vector<float> back(65536);
  sim::load_f32(DType::bfloat16, reinterpret_cast<uint8_t*>(all.data()), 2, all.size(), back.data());
  for (uint32_t i = 0; i < 65536; ++i) CHECK(isa::float_to_bits(back[i]) == isa::float_to_bits(isa::to_f32(DType::bfloat16, i)));
  std::vector<int32_t> ints = {0, 1, -1, 16777217, -16777217, INT32_MAX, INT32_MIN};
  std::vector<float> fi(ints.size());
  sim::load_f32(DType::int32, reinterpret_cast<uint8_t*>(ints.data()), 4, ints.size(), fi.data());
  for (size_t i = 0; i < ints.size(); ++i) CHECK(fi[i] == isa::to_f32(DType::int32, uint32_t(ints[i])));
}

TEST_CASE("load_int sign-extends signed dtypes, store_int truncates") {
  std::vector<uint8_t> b = {0xff, 0x80, 0x7f};
  std::vector<uint32_t> v(3);
  sim::load_int(DType::int8, b.data(), 1, 3, v.data());
  CHECK(v == std::vector<uint32_t>{0xffffffffu, 0xffffff80u, 0x7fu});
  sim::load_int(DType::uint8, b.data(), 1, 3, v.data());
  CHECK(v == std::vector<uint32_t>{0xffu, 0x80u, 0x7fu});
  std::vector<uint32_t> w = {0x12345678u};
  uint16_t h = 0;
  sim::store_int(DType::int16, reinterpret_cast<uint8_t*>(&h), 2, 1, w.data());
  CHECK(h == 0x5678);
}

TEST_CASE("view normalisation merges contiguous dims and computes extents") {
  auto ap = onchip(isa::Memory::SBUF, DType::float32, 0, 128, 64, {{16, 4}, {1, 16}});
  View v = sim::describe(ap);
  CHECK(v.nd == 1);
  CHECK(v.count[0] == 64);
  CHECK(v.step[0] == 4);
  CHECK(v.lo == 64);
  CHECK(v.hi == 64 + 64 * 4);
  CHECK(v.free_elems == 64);

  auto strided = onchip(isa::Memory::SBUF, DType::bfloat16, 0, 2, 100, {{1, 1}, {-8, 3}, {2, 4}});
  View s = sim::describe(strided);
  CHECK(s.nd == 2);
  CHECK(s.step[0] == -16);
  CHECK(s.step[1] == 4);
  CHECK(s.lo == 100 - 32);
  CHECK(s.hi == 100 + 12 + 2);
  CHECK(s.free_elems == 12);

  auto h = hbm(DType::float32, 1000, 32, 4, {{1, 8}});
  View hv = sim::describe(h);
  CHECK(hv.lo == 1000);
  CHECK(hv.hi == 1000 + (3 * 32 + 7) * 4 + 4);
  CHECK(hv.pstep == 128);

  auto empty = onchip(isa::Memory::SBUF, DType::float32, 0, 4, 0, {{1, 0}});
  CHECK(sim::describe(empty).empty());
  CHECK(sim::check_bounds(sim::describe(empty), 128, 16) == "");
}

TEST_CASE("view of a one-dim on-chip tile (describe's fast path) equals the general normalisation's") {
  // The general path drops a count-1 dim, so the same tile with one in front goes through it.
  const int32_t strides[] = {1, 2, -1, -7, 3, INT32_MAX, INT32_MIN};
  const uint32_t counts[] = {2, 64, 1000, UINT32_MAX};
  const int64_t offsets[] = {0, 100, -4, int64_t(1) << 61, -(int64_t(1) << 61)};
  for (DType t : {DType::float32, DType::bfloat16, DType::int8})
    for (int32_t st : strides)
      for (uint32_t n : counts)
        for (int64_t off : offsets) {
          CAPTURE(st);
          CAPTURE(n);
          CAPTURE(off);
          const View f = sim::describe(onchip(isa::Memory::SBUF, t, 3, 7, off, {{st, n}}));
          const View g = sim::describe(onchip(isa::Memory::SBUF, t, 3, 7, off, {{5, 1}, {st, n}}));
          CHECK(f.mem == g.mem);
          CHECK(f.dtype == g.dtype);
          CHECK(f.esize == g.esize);
          CHECK(f.start_partition == g.start_partition);
          CHECK(f.partitions == g.partitions);
          CHECK(f.pstep == g.pstep);
          CHECK(f.nd == g.nd);
          CHECK(f.step == g.step);
          CHECK(f.count == g.count);
          CHECK(f.free_elems == g.free_elems);
          CHECK(f.lo == g.lo);
          CHECK(f.hi == g.hi);
          CHECK(sim::check_bounds(f, 128, 196608) == sim::check_bounds(g, 128, 196608));
          CHECK(sim::in_bounds(f, 128, 196608) == sim::check_bounds(f, 128, 196608).empty());
        }
  const View v = sim::describe(sbuf(DType::float32, 0, 128, 256, 64));  // bench (c)'s b tile
  CHECK(v.lo == 256);
  CHECK(v.hi == 512);
  CHECK(v.free_elems == 64);
  CHECK(sim::in_bounds(v, 128, 196608));
  CHECK(!sim::in_bounds(sim::describe(sbuf(DType::float32, 100, 29, 0, 64)), 128, 196608));
  CHECK(sim::check_bounds(sim::describe(sbuf(DType::float32, 0, 1, 196600, 4)), 128, 196608) ==
        "outside SBUF partition bytes [0, 196608) (bytes [196600, 196616))");
}

TEST_CASE("ALU float semantics") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(sim::alu_f32(AluOp::abs_max, -3, 2) == -3);
  CHECK(sim::alu_f32(AluOp::abs_max, -2, 2) == 2);  // tie -> second operand
  CHECK(sim::alu_f32(AluOp::abs_min, -1, 2) == -1);
  CHECK(std::isnan(sim::alu_f32(AluOp::maximum, nan, 1)));
  CHECK(std::isnan(sim::alu_f32(AluOp::minimum, 1, nan)));
  CHECK(sim::alu_f32(AluOp::logical_or, 0, nan) == 1);
  CHECK(sim::alu_f32(AluOp::logical_not, 0, 5) == 1);
  CHECK(sim::alu_f32(AluOp::logical_not, -2, 5) == 0);
  CHECK(sim::alu_f32(AluOp::not_equal, 1, 1) == 0);
  CHECK(sim::alu_f32(AluOp::rsqrt, 4, 0) == 0.5f);
  CHECK(sim::alu_f32(AluOp::reciprocal, 8, 0) == 0.125f);
  CHECK(sim::alu_f32(AluOp::relu, -1, 0) == 0);
  CHECK(sim::alu_f32(AluOp::square, -3, 0) == 9);
  CHECK(sim::alu_f32(AluOp::bypass, 7, 1) == 7);
  float a[3] = {1, 2, 3}, out[3];
  sim::alu_ts_f32(AluOp::subtract, a, 10, true, out, 3);
  CHECK(out[2] == 7);
  sim::alu_ts_f32(AluOp::abs, a, 10, true, out, 3);  // unary: reverse ignored
  CHECK(out[1] == 2);
}

TEST_CASE("ALU integer semantics") {
  CHECK(sim::alu_int(AluOp::right_shift, 0xffffffffu, 4, 32) == 0x0fffffffu);  // logical
  CHECK(sim::alu_int(AluOp::right_shift, 0xffffff80u, 1, 8) == 0x40u);          // logical at int8 width
  CHECK(sim::alu_int(AluOp::left_shift, 1, 31, 32) == 0x80000000u);
  CHECK(sim::alu_int(AluOp::left_shift, 1, 32, 32) == 0);
  CHECK(sim::alu_int(AluOp::invert, 0, 0, 32) == 0xffffffffu);
  CHECK(sim::alu_is_bitvec(AluOp::bitwise_xor));
  CHECK(!sim::alu_is_bitvec(AluOp::add));
}

TEST_CASE("activation bodies") {
  using isa::ActFunc;
  CHECK(sim::act_f32(ActFunc::sign, -0.5f) == -1);
  CHECK(sim::act_f32(ActFunc::sign, 0.0f) == 0);
  CHECK(sim::act_f32(ActFunc::softplus, 100.0f) == 100.0f);
  CHECK(sim::act_f32(ActFunc::softplus, 0.0f) == doctest::Approx(std::log(2.0)));
  CHECK(sim::act_f32(ActFunc::mish, 1.0f) == doctest::Approx(1.0 * std::tanh(std::log1p(std::exp(1.0)))));
  CHECK(sim::act_f32(ActFunc::gelu_apprx_tanh, 1.0f) ==
        doctest::Approx(0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * (1 + 0.044715)))));
  CHECK(sim::act_f32(ActFunc::gelu, -1.0f) == doctest::Approx(-0.5 * (1 + std::erf(-1 / std::sqrt(2.0)))));
  CHECK(sim::act_f32(ActFunc::exp, 1.0f) == std::exp(1.0f));
  CHECK(sim::act_f32(ActFunc::log, 1.0f) == 0);
  CHECK(sim::act_f32(ActFunc::arctan, 1.0f) == doctest::Approx(M_PI / 4));
  CHECK(std::isnan(sim::act_f32(ActFunc::relu, std::nanf(""))));
}
