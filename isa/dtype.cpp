// dtype.cpp - NKI dtype metadata and bit-exact conversions between every dtype and fp32.
//
// Conventions chosen here (the header's contract leaves them open):
// * Rounding is round-to-nearest-even everywhere (floats and integers), independent of the
//   caller's FP environment only in that we assume the default rounding mode for std::nearbyint.
// * NaN results are canonical quiet NaNs with the input's sign (where the format has a sign):
//     float32   bits are passed through untouched (payload kept: equal-dtype copies are bit-exact)
//     tfloat32  S.11111111.1000000000 (0x7FC00000)      bfloat16 S.11111111.1000000 (0x7FC0)
//     float16   S.11111.1000000000 (0x7E00)              float8_e5m2 S.11111.10 (0x7E)
//     float8_e4m3 S.1111.100 (0x7C)                      float8_e4m3fn S.1111.111 (0x7F, its only NaN)
//     float8_e8m0fnu 0xFF (unsigned, its only NaN)
//   to_f32 of a NaN keeps the payload shifted into the top fp32 mantissa bits (like numpy's half->float).
// * Overflow: formats with an infinity round past-max values to +-inf exactly as IEEE RNE does
//   (fp16: 65520 -> inf, 65519.99 -> 65504; -FLT_MAX -> -inf). float8_e4m3fn has no infinity:
//   values that round beyond 448 (i.e. |x| > 464) and +-inf become NaN (sign kept), as ml_dtypes does.
// * float8_e8m0fnu (MX scale, value 2^(e-127), no sign, no zero):
//     NaN, +inf and every negative value (including -inf, excluding -0) -> 0xFF (NaN);
//     +-0 and anything below 2^-127 -> 0x00 (2^-127, the nearest representable value; there is no zero);
//     otherwise round to the nearest power of two. Ties (mantissa exactly 1.5) round UP: this is RNE on the
//     significand, whose only kept bit (the implicit 1) is odd. (ml_dtypes' bit trick would tie to the even
//     exponent code instead; PyTorch rounds ties up like we do.) Results above 2^127 -> 0xFF (NaN).
// * Integers (from_f32): NaN -> 0, round half to even, saturate to the type's range.
//   bool_ is stored as uint8 and converts exactly like uint8 (2.0 -> 2, 300 -> 255, -1 -> 0): the hardware
//   has no separate boolean datapath, so a bool_ destination holds whatever uint8 would.
// * to_f32 on tfloat32 ignores the 13 low bits (a tf32 value never has them set).
#include "isa/dtype.h"
#include "isa/mx.h"

#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace nkisim::isa {
namespace {

struct DTypeInfo {
  std::string_view name;
  unsigned size;
  DTypeKind kind;
  std::string_view descr;
};

constexpr DTypeInfo kInfo[] = {
#define DTYPE(id, name, bytes, kind, descr) {name, bytes, DTypeKind::kind, descr},
#include "isa/dtypes.def"
#undef DTYPE
};

const DTypeInfo& info(DType t) { return kInfo[static_cast<unsigned>(t)]; }

// Bit layout of a small float format. IEEE: all-ones exponent = inf (mantissa 0) / NaN.
// FN ("finite"): no inf, the only NaN is all-ones exponent and mantissa. E8M0 is handled separately.
enum class Special : uint8_t { IEEE, FN };
struct FloatFormat {
  int exp_bits;
  int man_bits;
  int bias;
  Special special;
};

constexpr FloatFormat kFloat16{5, 10, 15, Special::IEEE};
constexpr FloatFormat kFloat8E4M3{4, 3, 7, Special::IEEE};   // Trainium "cFP8": max 240
constexpr FloatFormat kFloat8E5M2{5, 2, 15, Special::IEEE};  // max 57344
constexpr FloatFormat kFloat8E4M3FN{4, 3, 7, Special::FN};   // OCP: max 448

// fp32 -> format F, returning the encoding in the low 1+E+M bits.
template <FloatFormat F>
inline uint32_t encode(uint32_t x) {
  constexpr int E = F.exp_bits, M = F.man_bits, B = F.bias;
  constexpr uint32_t kExpOnes = ((1u << E) - 1) << M;
  constexpr uint32_t kNaN = F.special == Special::IEEE ? kExpOnes | (1u << (M - 1)) : kExpOnes | ((1u << M) - 1);
  constexpr uint32_t kMaxFinite = F.special == Special::IEEE ? kExpOnes - 1 : kNaN - 1;
  constexpr uint32_t kOverflow = F.special == Special::IEEE ? kExpOnes : kNaN;
  constexpr int kShift = 23 - M;
  constexpr int kEmin = 1 - B;  // unbiased exponent of the smallest normal
  constexpr uint32_t kMinNormal32 = uint32_t(kEmin + 127) << 23;

  const uint32_t sign = (x >> 31) << (E + M);
  const uint32_t a = x & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return sign | (a == 0x7F800000u ? kOverflow : kNaN);
  uint32_t r;
  if (a >= kMinNormal32) {
    // Re-bias the exponent in place, then round away the low kShift mantissa bits (carries may bump the
    // exponent, possibly up to the overflow encoding).
    const uint32_t t = a - (uint32_t(127 - B) << 23);
    r = (t + ((1u << (kShift - 1)) - 1) + ((t >> kShift) & 1)) >> kShift;
    if (r > kMaxFinite) r = kOverflow;
  } else {
    // Subnormal (or zero) in the target: r = round(value / 2^(kEmin - M)).
    const uint32_t e32 = a >> 23;
    const uint32_t sig = e32 ? (a & 0x7FFFFFu) | 0x800000u : a;
    const int s = 150 + kEmin - M - int(e32 ? e32 : 1);
    if (s > 24) return sign;  // below half the smallest subnormal
    r = (sig + ((1u << (s - 1)) - 1) + ((sig >> s) & 1)) >> s;
  }
  return sign | r;
}

// Format F -> fp32 bits (exact).
template <FloatFormat F>
constexpr uint32_t decode(uint32_t h) {
  constexpr int E = F.exp_bits, M = F.man_bits, B = F.bias;
  constexpr uint32_t kExpMask = (1u << E) - 1, kManMask = (1u << M) - 1;
  const uint32_t sign = ((h >> (E + M)) & 1u) << 31;
  const uint32_t e = (h >> M) & kExpMask;
  const uint32_t m = h & kManMask;
  if (e == kExpMask && (F.special == Special::IEEE || m == kManMask))
    return sign | 0x7F800000u | (m << (23 - M));  // inf (IEEE, m == 0) or NaN (payload kept)
  if (e == 0) {
    if (m == 0) return sign;
    const int lz = std::countl_zero(m) - (32 - M);  // leading zeros inside the M-bit field
    return sign | (uint32_t(127 - B - lz) << 23) | (((m << (lz + 1)) & kManMask) << (23 - M));
  }
  return sign | ((e + 127 - B) << 23) | (m << (23 - M));
}

template <FloatFormat F>
constexpr std::array<float, 256> make_table8() {
  std::array<float, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) t[i] = std::bit_cast<float>(decode<F>(i));
  return t;
}
constexpr std::array<float, 256> kE4M3Table = make_table8<kFloat8E4M3>();
constexpr std::array<float, 256> kE5M2Table = make_table8<kFloat8E5M2>();
constexpr std::array<float, 256> kE4M3FNTable = make_table8<kFloat8E4M3FN>();

inline uint32_t encode_bf16(uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return ((x >> 16) & 0x8000u) | 0x7FC0u;
  // The fp32 and bf16 exponents coincide, so this rounds normals, subnormals and overflow (to inf) alike;
  // the carry never reaches the sign bit.
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

inline uint32_t encode_tf32(uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x & 0x80000000u) | 0x7FC00000u;
  return (x + 0xFFFu + ((x >> 13) & 1u)) & 0xFFFFE000u;
}

inline uint32_t encode_e8m0(uint32_t x) {
  if (x == 0x80000000u) return 0x00;  // -0 behaves as +0
  if (x >= 0x7F800000u) return 0xFF;  // +inf, NaN, and every negative value (sign bit set)
  const uint32_t e32 = x >> 23;
  if (e32 == 0) return x >= 0x00600000u ? 0x01 : 0x00;  // fp32 subnormal: 2^-127 vs 2^-126, tie (1.5*2^-127) up
  const uint32_t r = e32 + ((x >> 22) & 1u);            // mantissa >= 1.5 rounds up
  return r > 0xFEu ? 0xFFu : r;
}

inline float decode_e8m0(uint32_t b) {
  b &= 0xFFu;
  if (b == 0xFFu) return std::bit_cast<float>(0x7FC00000u);
  if (b == 0) return std::bit_cast<float>(0x00400000u);  // 2^-127 is an fp32 subnormal
  return std::bit_cast<float>(b << 23);
}

template <typename T>
inline uint32_t to_int(float v) {
  if (v != v) return 0;
  const float r = std::nearbyint(v);
  T out;
  if (r >= float(std::numeric_limits<T>::max()))
    out = std::numeric_limits<T>::max();  // float(INT32_MAX) == 2^31, so >= is exact saturation
  else if (r <= float(std::numeric_limits<T>::min()))
    out = std::numeric_limits<T>::min();
  else
    out = static_cast<T>(static_cast<int64_t>(r));
  constexpr uint32_t kMask = sizeof(T) == 4 ? 0xFFFFFFFFu : (1u << (8 * sizeof(T))) - 1;
  return static_cast<uint32_t>(out) & kMask;
}

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
static_assert(std::size(kInfo) == std::size(dtype_detail::kSize));
std::string_view dtype_numpy_descr(DType t) { return info(t).descr; }
bool is_numpy_native(DType t) { return info(t).descr[1] != 'V'; }

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "bool") return DType::bool_;
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == name) return static_cast<DType>(i);
  return std::nullopt;
}

float to_f32(DType t, uint32_t bits) {
  switch (t) {
    case DType::bool_:
    case DType::uint8:
      return float(uint8_t(bits));
    case DType::int8:
      return float(int8_t(bits));
    case DType::uint16:
      return float(uint16_t(bits));
    case DType::int16:
      return float(int16_t(bits));
    case DType::uint32:
      return float(bits);
    case DType::int32:
      return float(int32_t(bits));
    case DType::float32:
      return bits_to_float(bits);
    case DType::bfloat16:
      return bits_to_float(bits << 16);
    case DType::tfloat32:
      if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return bits_to_float((bits & 0xFFFFE000u) | 0x7FC00000u);
      return bits_to_float(bits & 0xFFFFE000u);
    case DType::float16:
      return bits_to_float(decode<kFloat16>(bits & 0xFFFFu));
    case DType::float8_e4m3:
      return kE4M3Table[bits & 0xFFu];
    case DType::float8_e5m2:
      return kE5M2Table[bits & 0xFFu];
    case DType::float8_e4m3fn:
      return kE4M3FNTable[bits & 0xFFu];
    case DType::float8_e8m0fnu:
      return decode_e8m0(bits);
    case DType::float8_e5m2_x4:
    case DType::float8_e4m3fn_x4:
    case DType::float4_e2m1fn_x4:
      return std::bit_cast<float>(0x7FC00000u);  // 4 values, not a scalar (isa/mx.h mx_unpack)
  }
  return 0.0f;
}

uint32_t from_f32(DType t, float v) {
  const uint32_t x = float_to_bits(v);
  switch (t) {
    case DType::bool_:
    case DType::uint8:
      return to_int<uint8_t>(v);
    case DType::int8:
      return to_int<int8_t>(v);
    case DType::uint16:
      return to_int<uint16_t>(v);
    case DType::int16:
      return to_int<int16_t>(v);
    case DType::uint32:
      return to_int<uint32_t>(v);
    case DType::int32:
      return to_int<int32_t>(v);
    case DType::float32:
      return x;
    case DType::bfloat16:
      return encode_bf16(x);
    case DType::tfloat32:
      return encode_tf32(x);
    case DType::float16:
      return encode<kFloat16>(x);
    case DType::float8_e4m3:
      return encode<kFloat8E4M3>(x);
    case DType::float8_e5m2:
      return encode<kFloat8E5M2>(x);
    case DType::float8_e4m3fn:
      return encode<kFloat8E4M3FN>(x);
    case DType::float8_e8m0fnu:
      return encode_e8m0(x);
    case DType::float8_e5m2_x4:
    case DType::float8_e4m3fn_x4:
    case DType::float4_e2m1fn_x4: {
      const float four[4] = {v, v, v, v};  // memset: the value in all 4 slots
      return mx_pack(t, four);
    }
  }
  return 0;
}

}  // namespace nkisim::isa
