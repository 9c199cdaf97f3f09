// test_alu_lanes.cpp - the 16-lane row kernels of the tensor_tensor / tensor_scalar fast paths (sim/alu.cpp:
// bypass, add, subtract, multiply, divide, maximum, minimum) give the bits of the generic per-element loops
// (alu_tt_f32 / alu_ts_f32) on random values and on every special: NaNs with payloads (quiet, signalling,
// negative), +-inf, +-0, subnormals, FLT_MAX, FLT_MIN; row lengths with and without a tail after the
// 16-lane blocks, dst disjoint from or equal to either input, both row directions, scalars from the same set.
// Where two NaNs meet the payload is pinned separately (the last test); the comparisons accept either NaN.
#include <doctest/doctest.h>

#include <cfloat>
#include <cstdio>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isa/dtype.h"
#include "sim/alu.h"
#include "float_test_util.h"

using namespace nkisim;
namespace {
// "" when bit-identical, else the first differing element and both bit patterns. Where both are NaN the
// payloads may differ (two NaNs met in one commutative op: which survives depends on the operand order the
// compiler picked, as for every fast path: floattest::same_bits_or_both_nan).
std::string diff(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return "sizes differ";
  for (size_t i = 0; i < got.size(); ++i) {
    const uint32_t g = isa::float_to_bits(got[i]), w = isa::float_to_bits(want[i]);
    if (g != w && !(std::isnan(got[i]) && std::isnan(want[i]))) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "element %zu: 0x%08x, want 0x%08x", i, unsigned(g), unsigned(w));
      return buf;
    }
  }
  return "";
}

const isa::AluOp kOps[] = {isa::AluOp::add,    isa::AluOp::subtract, isa::AluOp::multiply,
                           isa::AluOp::divide, isa::AluOp::maximum,  isa::AluOp::minimum};

std::vector<float> specials() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f,
          -0.0f,
          inf,
          -inf,
          isa::bits_to_float(0x7fc00123u),  // quiet NaN, payload
          isa::bits_to_float(0xffc00456u),  // negative quiet NaN
          isa::bits_to_float(0x7f800001u),  // signalling NaN
          isa::bits_to_float(0xffa00000u),  // negative signalling NaN
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          isa::bits_to_float(0x007fffffu),  // largest subnormal
          -1e-39f,
          FLT_MIN,
          -FLT_MIN,
          FLT_MAX,
          -FLT_MAX,
          3e38f,
          1.5f,
          -2.0f,
          1.0f};
}

// P rows of `stride` floats: every special against every other somewhere (row-major over all pairs when
// `pairs_with` is given), the rest random with specials mixed in.
std::vector<float> data(size_t count, uint32_t seed) {
  auto v = floattest::random_values(count, seed, 0.3);
  const auto sp = specials();
  for (size_t i = 0; i < count && i < sp.size() * sp.size(); ++i) v[i] = sp[i % sp.size()];
  return v;
}
std::vector<float> data_b(size_t count, uint32_t seed) {
  auto v = floattest::random_values(count, seed, 0.3);
  const auto sp = specials();
  for (size_t i = 0; i < count && i < sp.size() * sp.size(); ++i) v[i] = sp[i / sp.size()];
  return v;
}
}  // namespace

TEST_CASE("alu_tt_f32_rows (16-lane rows) equals alu_tt_f32 bit for bit on specials, every aliasing, both directions") {
  for (size_t n : {size_t(64), size_t(37), size_t(16), size_t(5), size_t(100), size_t(128), size_t(256)}) {
    const ptrdiff_t stride = ptrdiff_t(n) + 11;
    const uint32_t P = uint32_t((specials().size() * specials().size()) / n + 3);  // every special pair
    const size_t count = size_t(P) * size_t(stride);
    const auto a0 = data(count, 41 + uint32_t(n)), b0 = data_b(count, 42 + uint32_t(n));
    for (auto op : kOps) {
      CAPTURE(std::string(isa::alu_name(op)));
      CAPTURE(n);
      for (int alias = 0; alias < 4; ++alias) {  // 0: disjoint dst, 1: dst = a, 2: dst = b, 3: a = b = dst
        CAPTURE(alias);
        for (bool backward : {false, true}) {
          CAPTURE(backward);
          std::vector<float> a = a0, b = alias == 3 ? a0 : b0, d(count, 7.0f);
          std::vector<float> ra = a, rb = b, rd = d;
          float* dst = alias == 1 || alias == 3 ? a.data() : alias == 2 ? b.data() : d.data();
          float* rdst = alias == 1 || alias == 3 ? ra.data() : alias == 2 ? rb.data() : rd.data();
          const float* bb = alias == 3 ? a.data() : b.data();
          const float* rbb = alias == 3 ? ra.data() : rb.data();
          for (uint32_t i = 0; i < P; ++i)
            sim::alu_tt_f32(op, ra.data() + i * stride, rbb + i * stride, rdst + i * stride, n);
          const ptrdiff_t last = ptrdiff_t(P - 1) * stride, s = backward ? -stride : stride, o = backward ? last : 0;
          sim::alu_tt_f32_rows(op, a.data() + o, s, bb + o, s, dst + o, s, n, P);
          CHECK(diff(a, ra) == "");
          CHECK(diff(b, rb) == "");
          CHECK(diff(d, rd) == "");
        }
      }
    }
  }
}

TEST_CASE("alu_ts2_f32_rows (16-lane rows) equals alu_ts_f32 op0 then op1 bit for bit on specials and special scalars") {
  const auto sp = specials();
  for (size_t n : {size_t(64), size_t(21), size_t(128), size_t(256)}) {
    const ptrdiff_t stride = ptrdiff_t(n) + 5;
    const uint32_t P = uint32_t(sp.size());  // row i's scalars are specials i and P-1-i
    const size_t count = size_t(P) * size_t(stride);
    const auto a0 = data(count, 51 + uint32_t(n));
    std::vector<float> col0(sp), col1(sp.rbegin(), sp.rend());
    std::vector<isa::AluOp> ops1(std::begin(kOps), std::end(kOps));
    ops1.push_back(isa::AluOp::bypass);
    for (auto op0 : kOps)
      for (auto op1 : ops1)
        for (int variant = 0; variant < 4; ++variant) {
          const bool rev0 = variant & 1, in_place = variant & 2;
          if (rev0 && op1 != isa::AluOp::bypass) continue;  // reversed pairs are not fused (unchanged path)
          CAPTURE(std::string(isa::alu_name(op0)) + "," + std::string(isa::alu_name(op1)));
          CAPTURE(variant);
          std::vector<float> ref(count, 7.0f);
          if (in_place) ref = a0;
          for (uint32_t i = 0; i < P; ++i) {
            float* y = ref.data() + i * stride;
            sim::alu_ts_f32(op0, a0.data() + i * stride, col0[i], rev0, y, n);
            if (op1 != isa::AluOp::bypass) sim::alu_ts_f32(op1, y, col1[i], false, y, n);
          }
          for (bool backward : {false, true}) {
            CAPTURE(backward);
            std::vector<float> out(count, 7.0f);
            std::vector<float> in = a0;
            float* dst = in_place ? in.data() : out.data();
            const ptrdiff_t last = ptrdiff_t(P - 1), o = backward ? last : 0, s = backward ? -1 : 1;
            const sim::TsOp t0{op0, col0.data() + o, 0.0f, rev0}, t1{op1, col1.data() + o, 0.0f, false};
            sim::alu_ts2_f32_rows(t0, t1, s, in.data() + o * stride, s * stride, dst + o * stride, s * stride, n, P);
            CHECK(diff(in_place ? in : out, ref) == "");
          }
          // Immediates instead of columns: each special in turn, in place or not, both directions.
          for (size_t k = 0; k < sp.size(); k += 3) {
            std::vector<float> r2(count, 7.0f);
            if (in_place) r2 = a0;
            for (uint32_t i = 0; i < P; ++i) {
              float* y = r2.data() + i * stride;
              sim::alu_ts_f32(op0, a0.data() + i * stride, sp[k], rev0, y, n);
              if (op1 != isa::AluOp::bypass) sim::alu_ts_f32(op1, y, sp[sp.size() - 1 - k], false, y, n);
            }
            const sim::TsOp t0{op0, nullptr, sp[k], rev0}, t1{op1, nullptr, sp[sp.size() - 1 - k], false};
            for (bool backward : {false, true}) {
              CAPTURE(backward);
              std::vector<float> o2(count, 7.0f), in = a0;
              float* dst = in_place ? in.data() : o2.data();
              const ptrdiff_t o = backward ? ptrdiff_t(P - 1) * stride : 0, s = backward ? -stride : stride;
              sim::alu_ts2_f32_rows(t0, t1, 1, in.data() + o, s, dst + o, s, n, P);
              CHECK(diff(in_place ? in : o2, r2) == "");
            }
          }
        }
  }
}

TEST_CASE("maximum / minimum rows: where two NaNs meet, tensor_tensor keeps b's payload and tensor_scalar x's, quieted") {
  // The previous loops' choice (the operand order of their add), now explicit in the 16-lane form.
  const float na = isa::bits_to_float(0x7fc00aaau), nb = isa::bits_to_float(0x7f800bbbu);  // quiet, signalling
  for (auto op : {isa::AluOp::maximum, isa::AluOp::minimum}) {
    CAPTURE(std::string(isa::alu_name(op)));
    std::vector<float> a(64, na), b(64, nb), out(64, 0.0f);
    sim::alu_tt_f32_rows(op, a.data(), 64, b.data(), 64, out.data(), 64, 64, 1);
    for (float v : out) CHECK(isa::float_to_bits(v) == 0x7fc00bbbu);
    std::vector<float> x(64, nb);
    sim::alu_ts2_f32_rows({op, nullptr, na, false}, {}, 1, x.data(), 64, out.data(), 64, 64, 1);
    for (float v : out) CHECK(isa::float_to_bits(v) == 0x7fc00bbbu);
    a.assign(64, 1.5f);
    a[3] = -0.0f;
    b.assign(64, 0.0f);  // one NaN: that NaN quieted; signed zeros: b (a > b is false)
    b[5] = nb;
    sim::alu_tt_f32_rows(op, a.data(), 64, b.data(), 64, out.data(), 64, 64, 1);
    CHECK(isa::float_to_bits(out[5]) == 0x7fc00bbbu);
    CHECK(isa::float_to_bits(out[3]) == 0x00000000u);
    CHECK(out[0] == (op == isa::AluOp::maximum ? 1.5f : 0.0f));
  }
}
