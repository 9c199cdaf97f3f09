// test_dtype.cpp - dtype metadata and exhaustive, reference-checked fp32 <-> dtype conversions.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "isa/dtype.h"

#ifndef NKISIM_PYTHON
#define NKISIM_PYTHON "/usr/bin/python3"
#endif

using namespace nkisim::isa;

namespace {

// ---- An independent reference model of every float format, built from its parameters only. ----------
enum class Rule { IEEE, FN, E8M0 };
struct Format {
  DType t;
  int E, M, bias;
  Rule rule;
  int storage_shift;       // tfloat32 keeps its 19 bits in the top of a 32-bit word
  uint32_t canonical_nan;  // positive canonical NaN encoding (documented in dtype.cpp)
  int bits() const { return (rule == Rule::E8M0 ? 0 : 1) + E + M; }
};

const Format kFormats[] = {
    {DType::float16, 5, 10, 15, Rule::IEEE, 0, 0x7E00},      {DType::bfloat16, 8, 7, 127, Rule::IEEE, 0, 0x7FC0},
    {DType::tfloat32, 8, 10, 127, Rule::IEEE, 13, 0x3FE00},  {DType::float8_e4m3, 4, 3, 7, Rule::IEEE, 0, 0x7C},
    {DType::float8_e5m2, 5, 2, 15, Rule::IEEE, 0, 0x7E},     {DType::float8_e4m3fn, 4, 3, 7, Rule::FN, 0, 0x7F},
    {DType::float8_e8m0fnu, 8, 0, 127, Rule::E8M0, 0, 0xFF},
};

struct Reference {
  Format f;
  std::vector<double> mag;  // magnitude of encoding i (positive encodings, ascending), finite only
  double next = 0;          // the value one step past the largest finite magnitude
  uint32_t inf_or_overflow = 0;

  explicit Reference(const Format& fm) : f(fm) {
    const int emax_field = (1 << f.E) - 1;
    for (int e = 0; e <= emax_field; ++e)
      for (int m = 0; m < (1 << f.M); ++m) {
        if (f.rule == Rule::IEEE && e == emax_field) continue;
        if (f.rule == Rule::FN && e == emax_field && m == (1 << f.M) - 1) continue;
        if (f.rule == Rule::E8M0 && e == emax_field) continue;
        mag.push_back(value(uint32_t(e << f.M | m)));
      }
    const uint32_t top = uint32_t(mag.size());  // encoding right after the largest finite one
    if (f.rule == Rule::IEEE) {
      next = std::ldexp(1.0, emax_field - f.bias);  // 2^(emax+1): the "infinity" slot, even mantissa 0
      inf_or_overflow = top;
    } else if (f.rule == Rule::FN) {
      next = std::ldexp(double((2 << f.M) - 1), emax_field - f.bias - f.M);  // 480 for e4m3fn, odd mantissa
      inf_or_overflow = f.canonical_nan;
    } else {
      next = std::ldexp(1.0, 128);
      inf_or_overflow = f.canonical_nan;
    }
  }
  // Value of a non-negative, non-special encoding.
  double value(uint32_t enc) const {
    if (f.rule == Rule::E8M0) return std::ldexp(1.0, int(enc) - 127);
    const int e = int(enc >> f.M), m = int(enc & ((1u << f.M) - 1));
    if (e == 0) return std::ldexp(double(m), 1 - f.bias - f.M);
    return std::ldexp(double((1 << f.M) + m), e - f.bias - f.M);
  }
  uint32_t sign_bit() const { return f.rule == Rule::E8M0 ? 0 : 1u << (f.E + f.M); }
  bool is_nan(uint32_t enc) const {
    enc &= (1u << f.bits()) - 1;
    if (f.rule == Rule::E8M0) return enc == 0xFF;
    const uint32_t a = enc & (sign_bit() - 1);
    const uint32_t expones = ((1u << f.E) - 1) << f.M;
    if (f.rule == Rule::FN) return a == (expones | ((1u << f.M) - 1));
    return (a & expones) == expones && (a & ((1u << f.M) - 1)) != 0;
  }
  // Decoded value of any encoding (NaN for NaN patterns, +-inf for IEEE infinities).
  double decode(uint32_t enc) const {
    if (is_nan(enc)) return std::nan("");
    if (f.rule == Rule::E8M0) return value(enc);
    const bool neg = enc & sign_bit();
    const uint32_t a = enc & (sign_bit() - 1);
    double v = a >= mag.size() ? std::numeric_limits<double>::infinity() : value(a);
    return neg ? -v : v;
  }
  // Correctly rounded encoding of x (round to nearest, ties to even; e8m0 ties up).
  uint32_t round(float x) const {
    if (f.rule == Rule::E8M0) {
      if (std::isnan(x) || (std::signbit(x) && x != 0) || std::isinf(x)) return 0xFF;
      if (x == 0) return 0x00;
    } else {
      if (std::isnan(x)) return (std::signbit(x) ? sign_bit() : 0) | f.canonical_nan;
    }
    const uint32_t s = std::signbit(x) ? sign_bit() : 0;
    const double ax = std::fabs(double(x));
    if (std::isinf(x)) return s | inf_or_overflow;
    if (ax < mag.front()) return s | 0;  // only e8m0 can get here (its smallest value is 2^-127)
    const size_t i = size_t(std::upper_bound(mag.begin(), mag.end(), ax) - mag.begin()) - 1;  // mag[i] <= ax
    if (mag[i] == ax) return s | uint32_t(i);
    const double lo = mag[i], hi = i + 1 < mag.size() ? mag[i + 1] : next;
    const uint32_t hi_enc = i + 1 < mag.size() ? uint32_t(i + 1) : inf_or_overflow;
    const double mid = (lo + hi) / 2;
    uint32_t r;
    if (ax < mid)
      r = uint32_t(i);
    else if (ax > mid)
      r = hi_enc;
    else if (f.rule == Rule::E8M0)
      r = hi_enc;
    else
      r = (i % 2 == 0) ? uint32_t(i) : hi_enc;  // the encoding whose mantissa LSB is 0 (inf slot is even)
    return s | r;
  }
};

// Failure collector: CHECKing millions of values one by one is slow; report the first few mismatches.
struct Mismatches {
  int count = 0;
  void add(const std::string& what) {
    if (++count <= 10) FAIL_CHECK(what);
  }
};

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::vector<float> test_inputs(const Reference& ref) {
  std::vector<float> in;
  int inexact = 0;
  auto push = [&](double d) {
    const float v = float(d);
    if (double(v) != d) ++inexact;  // every generated point must be exact in fp32
    for (float y : {v, std::nextafter(v, 0.0f), std::nextafter(v, std::numeric_limits<float>::infinity())})
      in.push_back(y), in.push_back(-y);
  };
  for (size_t i = 0; i < ref.mag.size(); ++i) {
    push(ref.mag[i]);
    const double hi = i + 1 < ref.mag.size() ? ref.mag[i + 1] : ref.next;
    push((ref.mag[i] + hi) / 2);
  }
  CHECK(inexact == 0);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            0x1.fffffcp-127f,
                            65520.0f,
                            65519.996f,
                            248.0f,
                            464.0f,
                            464.00003f,
                            57344.0f,
                            61440.0f,
                            1.5f,
                            3.0f,
                            0x1.8p127f};
  for (float v : specials) in.push_back(v), in.push_back(-v);
  std::mt19937 rng(12345);
  for (int k = 0; k < 100000; ++k) in.push_back(bits_to_float(rng()));  // anywhere in fp32
  const int emin = ref.f.rule == Rule::E8M0 ? -128 : 1 - ref.f.bias - ref.f.M - 2;
  const int emax = ref.f.rule == Rule::E8M0 ? 127 : (1 << ref.f.E) - 1 - ref.f.bias + 1;
  std::uniform_int_distribution<int> ed(std::max(emin, -149), std::min(emax, 127));
  for (int k = 0; k < 100000; ++k) {  // inside the format's range
    const float v = std::ldexp(1.0f + float(rng() & 0x7FFFFF) * 0x1p-23f, ed(rng));
    in.push_back(rng() & 1 ? -v : v);
  }
  return in;
}

}  // namespace

TEST_CASE("dtype metadata comes from dtypes.def") {
  CHECK(kNumDTypes == 18);  // + the 3 packed MX x4 dtypes
  CHECK(dtype_name(DType::bfloat16) == "bfloat16");
  CHECK(dtype_size(DType::bfloat16) == 2);
  CHECK(dtype_size(DType::tfloat32) == 4);
  CHECK(dtype_size(DType::float8_e8m0fnu) == 1);
  CHECK(dtype_kind(DType::bool_) == DTypeKind::Bool);
  CHECK(dtype_kind(DType::int16) == DTypeKind::SInt);
  CHECK(dtype_kind(DType::uint32) == DTypeKind::UInt);
  CHECK(dtype_kind(DType::float8_e5m2) == DTypeKind::Float);
  CHECK(dtype_numpy_descr(DType::float32) == "<f4");
  CHECK(dtype_numpy_descr(DType::bfloat16) == "<V2");
  CHECK(is_numpy_native(DType::float16));
  CHECK(is_numpy_native(DType::bool_));
  CHECK_FALSE(is_numpy_native(DType::bfloat16));
  CHECK_FALSE(is_numpy_native(DType::tfloat32));
  CHECK_FALSE(is_numpy_native(DType::float8_e4m3fn));
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto t = static_cast<DType>(i);
    CHECK(parse_dtype(dtype_name(t)) == t);
  }
  CHECK(parse_dtype("bool") == DType::bool_);
  CHECK_FALSE(parse_dtype("bf16").has_value());
  CHECK_FALSE(parse_dtype("float").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK_FALSE(parse_dtype("float64").has_value());
  CHECK(is_float(DType::tfloat32));
  CHECK(is_integer(DType::bool_));
}

TEST_CASE("every 8/16-bit (and tfloat32) float encoding decodes exactly and round-trips") {
  for (const Format& f : kFormats) {
    CAPTURE(dtype_name(f.t));
    const Reference ref(f);
    Mismatches bad;
    for (uint32_t b = 0; b < (1u << f.bits()); ++b) {
      const float v = to_f32(f.t, b << f.storage_shift);
      const double want = ref.decode(b);
      const uint32_t back = from_f32(f.t, v) >> f.storage_shift;
      if (std::isnan(want)) {
        if (!std::isnan(v)) bad.add("NaN pattern " + hex(b) + " decoded to a number");
        if (!ref.is_nan(back)) bad.add("NaN pattern " + hex(b) + " re-encoded to non-NaN " + hex(back));
        continue;
      }
      if (!(double(v) == want && std::signbit(v) == std::signbit(want)))
        bad.add(hex(b) + " decodes to " + std::to_string(v) + ", want " + std::to_string(want));
      if (back != b) bad.add(hex(b) + " round-trips to " + hex(back));
    }
    CHECK(bad.count == 0);
  }
}

TEST_CASE("from_f32 rounds correctly against the reference (ties, overflow, subnormals, specials)") {
  for (const Format& f : kFormats) {
    CAPTURE(dtype_name(f.t));
    const Reference ref(f);
    Mismatches bad;
    const std::vector<float> inputs = test_inputs(ref);
    for (float x : inputs) {
      const uint32_t want = ref.round(x) << f.storage_shift;
      const uint32_t got = from_f32(f.t, x);
      if (got != want) bad.add("x=" + hex(float_to_bits(x)) + " got " + hex(got) + " want " + hex(want));
    }
    // NaN inputs of either sign and any payload give the canonical NaN.
    for (uint32_t nb : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFBFFFFFu, 0x7FFFFFFFu}) {
      const float x = bits_to_float(nb);
      const uint32_t want = ref.round(x) << f.storage_shift;
      if (from_f32(f.t, x) != want) bad.add("NaN " + hex(nb) + " got " + hex(from_f32(f.t, x)));
    }
    CHECK(bad.count == 0);
  }
}

TEST_CASE("documented edge cases of the float formats") {
  const float inf = std::numeric_limits<float>::infinity();
  const float fmax = std::numeric_limits<float>::max();
  CHECK(from_f32(DType::float16, 65504.0f) == 0x7BFF);
  CHECK(from_f32(DType::float16, 65519.99f) == 0x7BFF);
  CHECK(from_f32(DType::float16, 65520.0f) == 0x7C00);
  CHECK(from_f32(DType::float16, -fmax) == 0xFC00);
  CHECK(from_f32(DType::bfloat16, -fmax) == 0xFF80);
  CHECK(from_f32(DType::bfloat16, fmax) == 0x7F80);
  CHECK(from_f32(DType::float8_e4m3, -fmax) == 0xF8);
  CHECK(from_f32(DType::float8_e5m2, -fmax) == 0xFC);
  CHECK(to_f32(DType::float8_e4m3, 0x77) == 240.0f);
  CHECK(from_f32(DType::float8_e4m3, 247.9f) == 0x77);
  CHECK(from_f32(DType::float8_e4m3, 248.0f) == 0x78);  // tie goes to the even "inf" slot
  CHECK(std::isinf(to_f32(DType::float8_e4m3, 0x78)));
  CHECK(to_f32(DType::float8_e5m2, 0x7B) == 57344.0f);
  CHECK(to_f32(DType::float8_e4m3fn, 0x7E) == 448.0f);
  CHECK(from_f32(DType::float8_e4m3fn, 464.0f) == 0x7E);
  CHECK(from_f32(DType::float8_e4m3fn, 464.1f) == 0x7F);
  CHECK(from_f32(DType::float8_e4m3fn, inf) == 0x7F);
  CHECK(from_f32(DType::float8_e4m3fn, -inf) == 0xFF);
  CHECK(std::isnan(to_f32(DType::float8_e4m3fn, 0xFF)));
  CHECK(to_f32(DType::float8_e4m3fn, 0x78) == 256.0f);
  // canonical NaNs keep the sign
  CHECK(from_f32(DType::float16, -std::nanf("")) == 0xFE00);
  CHECK(from_f32(DType::bfloat16, std::nanf("")) == 0x7FC0);
  CHECK(from_f32(DType::tfloat32, -std::nanf("")) == 0xFFC00000u);
  // float32 is bit-exact, payload included
  CHECK(from_f32(DType::float32, bits_to_float(0x7F800123u)) == 0x7F800123u);
  CHECK(to_f32(DType::float32, 0xFFC00001u) != to_f32(DType::float32, 0xFFC00001u));
  // tfloat32: top 19 bits, low 13 ignored on read
  CHECK(from_f32(DType::tfloat32, 1.0f + 0x1p-11f) == 0x3F800000u);  // tie -> even
  CHECK(from_f32(DType::tfloat32, 1.0f + 0x3p-11f) == 0x3F804000u);  // tie -> even (up)
  CHECK(to_f32(DType::tfloat32, 0x3F801FFFu) == 1.0f);
  CHECK(from_f32(DType::tfloat32, fmax) == 0x7F800000u);
  // float8_e8m0fnu
  CHECK(to_f32(DType::float8_e8m0fnu, 127) == 1.0f);
  CHECK(to_f32(DType::float8_e8m0fnu, 0) == 0x1p-127f);
  CHECK(to_f32(DType::float8_e8m0fnu, 0xFE) == 0x1p127f);
  CHECK(std::isnan(to_f32(DType::float8_e8m0fnu, 0xFF)));
  CHECK(from_f32(DType::float8_e8m0fnu, 1.4999999f) == 127);
  CHECK(from_f32(DType::float8_e8m0fnu, 0x1.8p127f) == 0xFF);
  CHECK(from_f32(DType::float8_e8m0fnu, 1.5f) == 128);
  CHECK(from_f32(DType::float8_e8m0fnu, 3.0f) == 129);
  CHECK(from_f32(DType::float8_e8m0fnu, 0.0f) == 0x00);
  CHECK(from_f32(DType::float8_e8m0fnu, -0.0f) == 0x00);
  CHECK(from_f32(DType::float8_e8m0fnu, 1e-45f) == 0x00);
  CHECK(from_f32(DType::float8_e8m0fnu, -1.0f) == 0xFF);
  CHECK(from_f32(DType::float8_e8m0fnu, inf) == 0xFF);
  CHECK(from_f32(DType::float8_e8m0fnu, fmax) == 0xFF);
  CHECK(from_f32(DType::float8_e8m0fnu, 0x1.7ffffep127f) == 0xFE);
}

TEST_CASE("integer conversions: round half to even, saturate, NaN -> 0") {
  CHECK(from_f32(DType::int32, 2.5f) == 2);
  CHECK(from_f32(DType::int32, 3.5f) == 4);
  CHECK(from_f32(DType::int32, -2.5f) == uint32_t(-2));
  CHECK(from_f32(DType::int32, -3.5f) == uint32_t(-4));
  CHECK(from_f32(DType::int32, 0.49999997f) == 0);
  CHECK(from_f32(DType::int32, 1e10f) == uint32_t(INT32_MAX));
  CHECK(from_f32(DType::int32, -1e10f) == uint32_t(INT32_MIN));
  CHECK(from_f32(DType::int32, 2147483648.0f) == uint32_t(INT32_MAX));
  CHECK(from_f32(DType::int32, 2147483520.0f) == 2147483520u);
  CHECK(from_f32(DType::int32, -2147483648.0f) == 0x80000000u);
  CHECK(from_f32(DType::int32, std::nanf("")) == 0);
  CHECK(from_f32(DType::int32, std::numeric_limits<float>::infinity()) == uint32_t(INT32_MAX));
  CHECK(from_f32(DType::int32, -std::numeric_limits<float>::infinity()) == uint32_t(INT32_MIN));
  CHECK(from_f32(DType::uint32, -1.0f) == 0);
  CHECK(from_f32(DType::uint32, 1e10f) == UINT32_MAX);
  CHECK(from_f32(DType::uint32, 4294967040.0f) == 4294967040u);
  CHECK(from_f32(DType::uint32, -0.5f) == 0);
  CHECK(from_f32(DType::uint32, std::nanf("")) == 0);
  CHECK(from_f32(DType::int8, 300.0f) == 127);
  CHECK(from_f32(DType::int8, -300.0f) == 0x80);
  CHECK(from_f32(DType::int8, -1.0f) == 0xFF);
  CHECK(from_f32(DType::int8, 126.5f) == 126);
  CHECK(from_f32(DType::int8, 127.5f) == 127);
  CHECK(from_f32(DType::uint8, 255.5f) == 255);
  CHECK(from_f32(DType::uint8, 254.5f) == 254);
  CHECK(from_f32(DType::uint8, -7.0f) == 0);
  CHECK(from_f32(DType::int16, 40000.0f) == 0x7FFF);
  CHECK(from_f32(DType::int16, -40000.0f) == 0x8000);
  CHECK(from_f32(DType::int16, -2.0f) == 0xFFFE);
  CHECK(from_f32(DType::uint16, 70000.0f) == 0xFFFF);
  CHECK(from_f32(DType::uint16, 0.5f) == 0);
  CHECK(from_f32(DType::uint16, 1.5f) == 2);
  // bool_ is stored as uint8 and converts like it (documented in dtype.cpp)
  CHECK(from_f32(DType::bool_, 1.0f) == 1);
  CHECK(from_f32(DType::bool_, 0.0f) == 0);
  CHECK(from_f32(DType::bool_, 2.0f) == 2);
  CHECK(from_f32(DType::bool_, 300.0f) == 255);
  CHECK(from_f32(DType::bool_, -1.0f) == 0);
  // to_f32: plain conversion, sign from the dtype, RNE beyond 2^24
  CHECK(to_f32(DType::int8, 0xFF) == -1.0f);
  CHECK(to_f32(DType::uint8, 0xFF) == 255.0f);
  CHECK(to_f32(DType::int16, 0x8000) == -32768.0f);
  CHECK(to_f32(DType::uint16, 0xFFFF) == 65535.0f);
  CHECK(to_f32(DType::int32, 0x80000000u) == -2147483648.0f);
  CHECK(to_f32(DType::int32, 16777217u) == 16777216.0f);
  CHECK(to_f32(DType::int32, 16777219u) == 16777220.0f);
  CHECK(to_f32(DType::uint32, 0xFFFFFFFFu) == 4294967296.0f);
  CHECK(to_f32(DType::bool_, 1) == 1.0f);
  // exhaustive 8/16-bit integer round trips
  for (DType t : {DType::int8, DType::uint8, DType::int16, DType::uint16, DType::bool_}) {
    Mismatches bad;
    const uint32_t n = 1u << (8 * dtype_size(t));
    for (uint32_t b = 0; b < n; ++b)
      if (from_f32(t, to_f32(t, b)) != b) bad.add(std::string(dtype_name(t)) + " " + hex(b));
    CHECK(bad.count == 0);
  }
}

TEST_CASE("float16 conversions agree bit for bit with numpy") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("nkisim_dtype_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream py(dir / "gen.py");
    py << R"PY(import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(20240607)
parts = [rng.integers(0, 2**32, 60000, dtype=np.uint64).astype(np.uint32).view(np.float32),
         (rng.standard_normal(60000) * 10.0 ** rng.integers(-9, 6, 60000)).astype(np.float32)]
h = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float32)
mid = (h[:-1] + h[1:]) / np.float32(2)
parts += [mid, np.nextafter(mid, np.float32(0)), np.nextafter(mid, np.float32(np.inf))]
x = np.concatenate(parts).astype(np.float32)
x = np.concatenate([x, -x])
x = x[~np.isnan(x)]
with np.errstate(all='ignore'):
    x.tofile(d + '/x.bin')
    x.astype(np.float16).view(np.uint16).tofile(d + '/h.bin')
    np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32).tofile(d + '/w.bin')
)PY";
  }
  const std::string cmd = std::string(NKISIM_PYTHON) + " " + (dir / "gen.py").string() + " " + dir.string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const auto xs = slurp(dir / "x.bin"), hs = slurp(dir / "h.bin"), ws = slurp(dir / "w.bin");
  fs::remove_all(dir);
  const size_t n = xs.size() / 4;
  REQUIRE(n > 200000);
  REQUIRE(hs.size() == n * 2);
  REQUIRE(ws.size() == 65536 * 4);
  Mismatches bad;
  for (size_t k = 0; k < n; ++k) {
    float x;
    uint16_t h;
    std::memcpy(&x, &xs[k * 4], 4);
    std::memcpy(&h, &hs[k * 2], 2);
    if (from_f32(DType::float16, x) != h)
      bad.add("x=" + hex(float_to_bits(x)) + " got " + hex(from_f32(DType::float16, x)) + " numpy " + hex(h));
  }
  for (uint32_t b = 0; b < 65536; ++b) {  // widening keeps NaN payloads exactly like numpy
    uint32_t w;
    std::memcpy(&w, &ws[b * 4], 4);
    if (float_to_bits(to_f32(DType::float16, b)) != w) bad.add("widen " + hex(b));
  }
  CHECK(bad.count == 0);
}
