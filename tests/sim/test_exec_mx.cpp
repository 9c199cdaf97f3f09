// test_exec_mx.cpp - the MX instructions (trn3): quantize_mx and nc_matmul_mx (load_stationary_mx +
// multiply_moving_mx) against references computed here, "no casts / no arithmetic" on packed dtypes, validation
// errors, and the closed-form Tensor Engine timing of the MX multiply.
#include <cmath>

#include "isa/mx.h"
#include "sim/cost.h"
#include "timing_test_util.h"
#include "vector_test_util.h"

using namespace vectest;

namespace {
// fp32 -> fp8 code by brute force over all 256 codes: the nearest value, ties to the even code (i.e. the even
// mantissa), NaN for NaN. Independent of the encoder under test; decoding uses isa::to_f32 (tested on its own).
uint32_t fp8_ref(DType t, float x) {
  if (std::isnan(x)) return t == DType::float8_e4m3fn ? 0x7Fu : 0x7Eu;
  uint32_t best = 0;
  double bd = 1e300;
  for (uint32_t c = 0; c < 256; ++c) {
    const float v = isa::to_f32(t, c);
    if (std::isnan(v) || std::isinf(v)) continue;
    if (std::signbit(v) != std::signbit(x)) continue;
    const double d = std::fabs(double(v) - double(x));
    if (d < bd || (d == bd && c % 2 == 0)) {
      bd = d;
      best = c;
    }
  }
  return best;
}

// The 0.5.0+ scale rule written from its statement: X = 2^(floor(log2(amax)) - (Emax - 1)).
uint32_t scale_ref(const std::vector<float>& g, int emax) {
  double amax = 0;
  for (float v : g) {
    if (!std::isfinite(v)) return 0xFF;
    amax = std::max(amax, std::fabs(double(v)));
  }
  if (amax == 0) return 0;
  const int e = int(std::floor(std::log2(amax))) - (emax - 1) + 127;
  return uint32_t(std::max(0, e));
}

// A packed-word input of dtype t (32- or 16-bit containers).
AccessPattern packed_in(Kernel& k, DType t, const std::vector<uint32_t>& w, uint32_t P, uint32_t F) {
  if (isa::dtype_size(t) == 4) return k.raw_in(t, w, P, F);
  std::vector<uint16_t> h(w.begin(), w.end());
  return k.raw_in(t, h, P, F);
}

double ns_cycles(const isa::Instruction& ins, const isa::TargetDesc& t) {
  return sim::engine_ns(ins, Engine::Tensor, t) * t.tensor_ghz;
}
}  // namespace

TEST_CASE("quantize_mx: 0.5.0 scale rule per 8x4 group, scales in their quadrant rows, RNE values") {
  for (DType dt : {DType::float8_e4m3fn_x4, DType::float8_e5m2_x4}) {
    for (uint32_t P : {32u, 128u}) {
      CAPTURE(P);
      CAPTURE(isa::dtype_name(dt));
      const uint32_t F = 16, C = F / 4;
      const DType et = dt == DType::float8_e4m3fn_x4 ? DType::float8_e4m3fn : DType::float8_e5m2;
      const int emax = et == DType::float8_e4m3fn ? 8 : 15;
      std::vector<float> x = noise(size_t(P) * F, 31, -3, 3);
      for (uint32_t p = 0; p < P; ++p)
        for (uint32_t j = 0; j < F; ++j) {
          float& v = x[p * F + j];
          v = std::ldexp(v, int((p / 8 + j / 4) % 9) - 4);  // group magnitudes 2^-4 .. 2^4
          if (p < 8 && j < 4) v = (p == 3 && j == 1) ? -0.0f : 0.0f;    // an all-zero group
          if (p >= 8 && p < 16 && j < 4) v = std::ldexp(v, -125);        // a tiny group: scale clamps to 2^-127
          if (p == 17 && j == 5) v = kNaN;                                // a NaN group
          if (p == 9 && j == 14) v = -kInf;                               // an inf group
        }
      std::vector<uint16_t> xb(x.size());
      for (size_t i = 0; i < x.size(); ++i) xb[i] = bf16_bits(x[i]);
      for (size_t i = 0; i < x.size(); ++i) x[i] = isa::bits_to_float(uint32_t(xb[i]) << 16);
      Kernel k;
      k.target = "trn3";
      auto tx = k.raw_in(DType::bfloat16, xb, P, F);
      auto sc = k.raw_in(DType::uint8, std::vector<uint8_t>(size_t(P) * C, 0xAB), P, C);  // pre-filled scale rows
      auto d = k.tile(dt, P, C);
      k.op(Engine::Vector, Opcode::quantize_mx, {d, tx, sc});
      k.out(d);
      k.out(sc);
      auto r = k.run();
      auto words = values<uint32_t>(r.outputs[0]);
      auto scales = values<uint8_t>(r.outputs[1]);
      std::vector<bool> is_scale_row(P, false);
      for (uint32_t g = 0; g < P / 8; ++g) {
        const uint32_t row = (g / 4) * 32 + g % 4;
        is_scale_row[row] = true;
        for (uint32_t c = 0; c < C; ++c) {
          std::vector<float> grp;
          for (uint32_t p = 8 * g; p < 8 * g + 8; ++p)
            for (uint32_t e = 4 * c; e < 4 * c + 4; ++e) grp.push_back(x[p * F + e]);
          const uint32_t s = scale_ref(grp, emax);
          CHECK(scales[row * C + c] == s);
          for (uint32_t p = 8 * g; p < 8 * g + 8; ++p)
            for (uint32_t q = 0; q < 4; ++q) {
              const float v = x[p * F + 4 * c + q];
              const float scaled = s == 0xFF ? kNaN : float(double(v) / std::ldexp(1.0, int(s) - 127));
              CHECK(((words[p * C + c] >> (8 * q)) & 0xFFu) == fp8_ref(et, scaled));
            }
        }
      }
      for (uint32_t p = 0; p < P; ++p)
        if (!is_scale_row[p])
          for (uint32_t c = 0; c < C; ++c) CHECK(scales[p * C + c] == 0xAB);
    }
  }
}

namespace {
struct MxCase {
  DType sd, md;
  uint32_t K, M, N;
};
// Random packed words whose values are small integers (fp8) or fp4 values, so every sum below is exact in fp32.
std::vector<uint32_t> mx_words(DType t, size_t n, uint32_t seed) {
  auto r = noise(4 * n, seed, -8.0f, 8.99f);
  std::vector<uint32_t> w(n);
  for (size_t i = 0; i < n; ++i) {
    float v[4];
    for (int q = 0; q < 4; ++q) v[q] = isa::mx_value_bits(t) == 4 ? std::round(r[4 * i + q]) / 2 : std::floor(r[4 * i + q]);
    w[i] = isa::mx_pack(t, v);
  }
  return w;
}
// Dequantized value of packed slot q: decoded from the bit layout stated in isa/mx.h, independently of mx_unpack.
double deq(DType t, uint32_t word, int q, uint8_t scale) {
  double v;
  if (isa::mx_value_bits(t) == 4) {
    const uint32_t b = (word >> (4 * q)) & 0xF;
    const int e = (b >> 1) & 3, m = b & 1;
    v = e == 0 ? m * 0.5 : std::ldexp(1.0 + m * 0.5, e - 1);
    if (b & 8) v = -v;
  } else {
    v = isa::to_f32(t == DType::float8_e5m2_x4 ? DType::float8_e5m2 : DType::float8_e4m3fn, (word >> (8 * q)) & 0xFF);
  }
  return scale == 0xFF ? std::nan("") : v * std::ldexp(1.0, int(scale) - 127);
}
}  // namespace

TEST_CASE("nc_matmul_mx: einsum('kiq,kjq->ij', stat*scale_s, mov*scale_m), fp32 accumulation, bf16 dst") {
  for (MxCase c : {MxCase{DType::float8_e4m3fn_x4, DType::float8_e5m2_x4, 32, 8, 16},
                   MxCase{DType::float8_e4m3fn_x4, DType::float4_e2m1fn_x4, 128, 128, 64},
                   MxCase{DType::float4_e2m1fn_x4, DType::float4_e2m1fn_x4, 64, 2, 1}}) {
    CAPTURE(c.K);
    CAPTURE(c.M);
    const auto sw = mx_words(c.sd, size_t(c.K) * c.M, 1), mw = mx_words(c.md, size_t(c.K) * c.N, 2);
    const uint32_t SP = isa::mx_scale_partitions(c.K);
    std::vector<uint8_t> ss(size_t(SP) * c.M, 0x55), ms(size_t(SP) * c.N, 0x55);  // 0x55: unused rows
    for (uint32_t p = 0; p < c.K; p += 8) {
      for (uint32_t j = 0; j < c.M; ++j) ss[isa::mx_scale_row(p) * c.M + j] = uint8_t(125 + (p / 8 + j) % 5);
      for (uint32_t j = 0; j < c.N; ++j) ms[isa::mx_scale_row(p) * c.N + j] = uint8_t(126 + (p / 8 + 2 * j) % 4);
    }
    Kernel k;
    k.target = "trn3";
    auto ts = packed_in(k, c.sd, sw, c.K, c.M), tm = packed_in(k, c.md, mw, c.K, c.N);
    auto tss = k.input(raw_array(DType::float8_e8m0fnu, {SP, c.M}, ss), SP, c.M);
    auto tms = k.input(raw_array(DType::uint8, {SP, c.N}, ms), SP, c.N);
    auto d = k.psum_tile(DType::float32, c.M, c.N), db = k.psum_tile(DType::bfloat16, c.M, c.N);
    k.op(Engine::Tensor, Opcode::load_stationary_mx, {ts, tss});
    k.op(Engine::Tensor, Opcode::multiply_moving_mx, {d, tm, tms});
    k.op(Engine::Tensor, Opcode::multiply_moving_mx, {d, tm, tms}).params.accumulate = true;  // 2x
    k.op(Engine::Tensor, Opcode::multiply_moving_mx, {db, tm, tms});
    auto o32 = k.tile(DType::float32, c.M, c.N), o16 = k.tile(DType::bfloat16, c.M, c.N);
    k.op(Engine::Vector, Opcode::tensor_copy, {o32, d});
    k.op(Engine::Vector, Opcode::tensor_copy, {o16, db});
    k.out(o32);
    k.out(o16);
    auto r = k.run();
    auto f = f32_out(r, 0);
    auto b = values<uint16_t>(r.outputs[1]);
    for (uint32_t i = 0; i < c.M; ++i)
      for (uint32_t j = 0; j < c.N; ++j) {
        double sum = 0;
        for (uint32_t p = 0; p < c.K; ++p)
          for (int q = 0; q < 4; ++q)
            sum += deq(c.sd, sw[p * c.M + i], q, ss[isa::mx_scale_row(p) * c.M + i]) *
                   deq(c.md, mw[p * c.N + j], q, ms[isa::mx_scale_row(p) * c.N + j]);
        CHECK(f[i * c.N + j] == float(2 * sum));
        CHECK(b[i * c.N + j] == bf16_bits(float(sum)));
      }
  }
}

TEST_CASE("nc_matmul_mx: a NaN scale (0xFF) poisons its columns") {
  const uint32_t K = 32, M = 2, N = 2;
  Kernel k;
  k.target = "trn3";
  auto ts = k.raw_in(DType::float8_e4m3fn_x4, std::vector<uint32_t>(K * M, 0x38383838u), K, M);  // all 1.0
  auto tm = k.raw_in(DType::float8_e4m3fn_x4, std::vector<uint32_t>(K * N, 0x38383838u), K, N);
  std::vector<uint8_t> ss(4 * M, 127), ms(4 * N, 127);
  ms[1] = 0xFF;  // group 0, column 1
  auto tss = k.raw_in(DType::uint8, ss, 4, M), tms = k.raw_in(DType::uint8, ms, 4, N);
  auto d = k.psum_tile(DType::float32, M, N);
  k.op(Engine::Tensor, Opcode::load_stationary_mx, {ts, tss});
  k.op(Engine::Tensor, Opcode::multiply_moving_mx, {d, tm, tms});
  auto o = k.tile(DType::float32, M, N);
  k.op(Engine::Vector, Opcode::tensor_copy, {o, d});
  k.out(o);
  auto f = f32_out(k.run(), 0);
  CHECK(f[0] == 128.0f);
  CHECK(std::isnan(f[1]));
  CHECK(f[2] == 128.0f);
  CHECK(std::isnan(f[3]));
}

TEST_CASE("MX dtypes: copies are bit-exact, casts and arithmetic are located errors, MX ops are trn3 only") {
  const std::vector<uint32_t> w = {0x12345678u, 0xFFFFFFFFu, 0x7F7F0000u, 0x80808080u};
  Kernel k;
  auto t = k.raw_in(DType::float8_e5m2_x4, w, 2, 2);
  auto c = k.tile(DType::float8_e5m2_x4, 2, 2);
  k.op(Engine::Vector, Opcode::tensor_copy, {c, t});
  k.out(c);
  CHECK(values<uint32_t>(k.run().outputs[0]) == w);

  Kernel k2;
  auto t2 = k2.raw_in(DType::float8_e5m2_x4, w, 2, 2);
  k2.op(Engine::Vector, Opcode::tensor_copy, {k2.tile(DType::float32, 2, 2), t2});
  CHECK(k2.error() ==
        "tensor_copy: cannot cast between float8_e5m2_x4 and float32 (no casts for MX dtypes; copies are bit-exact)");
  Kernel k3;
  auto t3 = k3.raw_in(DType::float8_e5m2_x4, w, 2, 2);
  auto& tt = k3.op(Engine::Vector, Opcode::tensor_tensor, {k3.tile(DType::float32, 2, 2), t3, t3});
  tt.params.op0 = AluOp::add;
  CHECK(k3.error() ==
        "tensor_tensor: operand 'data1' has the packed MX dtype float8_e5m2_x4; only dma_copy, tensor_copy, sendrecv, memset, "
        "quantize_mx and nc_matmul_mx take MX dtypes (no arithmetic or casts on them)");

  Kernel k4;  // trn2
  auto x4 = k4.raw_in(DType::bfloat16, std::vector<uint16_t>(32 * 4, 0x3F80), 32, 4);
  auto s4 = k4.tile(DType::uint8, 4, 1);
  k4.op(Engine::Vector, Opcode::quantize_mx, {k4.tile(DType::float8_e4m3fn_x4, 32, 1), x4, s4});
  CHECK(k4.error() == "quantize_mx: not available on trn2 (trn3 only)");

  Kernel k5;
  k5.target = "trn3";
  auto x5 = k5.raw_in(DType::bfloat16, std::vector<uint16_t>(16 * 4, 0x3F80), 16, 4);
  k5.op(Engine::Vector, Opcode::quantize_mx, {k5.tile(DType::float8_e4m3fn_x4, 16, 1), x5, k5.tile(DType::uint8, 4, 1)});
  CHECK(k5.error() == "quantize_mx: src has 16 partitions; MX data needs a multiple of 32 (at most 128)");

  Kernel k6;
  k6.target = "trn3";
  auto x6 = k6.raw_in(DType::bfloat16, std::vector<uint16_t>(64 * 4, 0x3F80), 64, 4);
  k6.op(Engine::Vector, Opcode::quantize_mx, {k6.tile(DType::float8_e4m3fn_x4, 64, 1), x6, k6.tile(DType::uint8, 4, 1)});
  CHECK(k6.error() ==
        "quantize_mx: dst_scale has 4 partitions x 1 elements; the scales of 64 data partitions x 1 elements need at "
        "least 36 partitions (scale of partition p at row (p/8/4)*32 + (p/8)%4) x 1 elements");

  Kernel k7;
  k7.target = "trn3";
  auto m7 = k7.raw_in(DType::float8_e4m3fn_x4, std::vector<uint32_t>(32 * 2, 0), 32, 2);
  auto s7 = k7.raw_in(DType::uint8, std::vector<uint8_t>(4 * 2, 127), 4, 2);
  k7.op(Engine::Tensor, Opcode::multiply_moving_mx, {k7.psum_tile(DType::float32, 2, 2), m7, s7});
  CHECK(k7.error() ==
        "multiply_moving_mx: the PE array holds no MX stationary (a load_stationary_mx must come first on the Tensor "
        "engine)");

  Kernel k8;
  k8.target = "trn3";
  auto m8 = k8.raw_in(DType::float8_e4m3fn, std::vector<uint8_t>(32 * 2, 0), 32, 2);
  auto s8 = k8.raw_in(DType::uint8, std::vector<uint8_t>(4 * 2, 127), 4, 2);
  k8.op(Engine::Tensor, Opcode::load_stationary_mx, {m8, s8});
  CHECK(k8.error() ==
        "load_stationary_mx: stationary must be float8_e5m2_x4, float8_e4m3fn_x4 or float4_e2m1fn_x4, got float8_e4m3fn");
}

TEST_CASE("MX cost: LS as load_stationary, MM = max(min(MM_INIT, M), N) x 4 / pe_mx_macs_per_cycle") {
  using namespace ttest;
  auto t = unthrottled("trn3");
  CHECK(t.pe_mx_macs_per_cycle == 4);
  auto ls = [](uint32_t m) {
    return make(Opcode::load_stationary_mx,
                {sbuf(DType::float8_e4m3fn_x4, 0, 128, 0, m), sbuf(DType::uint8, 0, 100, 8192, m)});
  };
  auto mm = [](uint32_t m, uint32_t n, int64_t psum_off = 0) {
    return make(Opcode::multiply_moving_mx, {psum(DType::float32, 0, m, psum_off, n),
                                             sbuf(DType::float8_e5m2_x4, 0, 128, 16384, n),
                                             sbuf(DType::uint8, 0, 100, 32768, n)});
  };
  for (uint32_t m : {2u, 64u, 128u})
    for (uint32_t n : {1u, 64u, 100u, 512u}) {
      CAPTURE(m);
      CAPTURE(n);
      CHECK(ns_cycles(ls(m), t) == doctest::Approx(std::ceil(std::max(64.0, double(m)) / 4)));
      CHECK(ns_cycles(mm(m, n), t) == doctest::Approx(std::max(std::min(64.0, double(m)), double(n))));
      auto slow = t;
      slow.pe_mx_macs_per_cycle = 1;  // one MAC per cycle: 4 passes of the bf16 rate
      CHECK(ns_cycles(mm(m, n), slow) == doctest::Approx(4 * std::max(std::min(64.0, double(m)), double(n))));
      // Back-to-back multiplies with a resident stationary: II = the MM cost; the first waits for the weights.
      Builder b;
      b.add(Engine::Tensor, ls(m));
      for (int i = 0; i < 4; ++i) b.add(Engine::Tensor, mm(m, n, i * 2048));
      auto r = timed(b.p, t);
      const double mm_ns = cyc(std::max(std::min(64.0, double(m)), double(n)), Engine::Tensor, t);
      CHECK(dur(rec(r, Engine::Tensor, 0)) == doctest::Approx(cyc(std::ceil(std::max(64.0, double(m)) / 4), Engine::Tensor, t)));
      CHECK(rec(r, Engine::Tensor, 1).start_ns == doctest::Approx(rec(r, Engine::Tensor, 0).end_ns));
      for (uint32_t i = 2; i <= 4; ++i)
        CHECK(rec(r, Engine::Tensor, i).start_ns - rec(r, Engine::Tensor, i - 1).start_ns == doctest::Approx(mm_ns));
      CHECK(r.total_ns == doctest::Approx(rec(r, Engine::Tensor, 4).end_ns));
    }
  // quantize_mx streams 4 input elements per partition per cycle: max(MIN_II, N/4) Vector cycles.
  auto q = make(Opcode::quantize_mx, {sbuf(DType::float8_e4m3fn_x4, 0, 128, 0, 256), sbuf(DType::bfloat16, 0, 128, 4096, 1024),
                                      sbuf(DType::uint8, 0, 100, 8192, 256)});
  CHECK(sim::engine_ns(q, Engine::Vector, t) * t.vector_ghz == doctest::Approx(256));
  auto q2 = make(Opcode::quantize_mx, {sbuf(DType::float8_e4m3fn_x4, 0, 128, 0, 16), sbuf(DType::bfloat16, 0, 128, 4096, 64),
                                       sbuf(DType::uint8, 0, 100, 8192, 16)});
  CHECK(sim::engine_ns(q2, Engine::Vector, t) * t.vector_ghz == doctest::Approx(64));
}
