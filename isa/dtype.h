// dtype.h - NKI data types: sizes, names, and bit-exact conversion to and from fp32.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace nkisim::isa {

enum class DType : uint8_t {
#define DTYPE(id, name, bytes, kind, descr) id,
#include "isa/dtypes.def"
#undef DTYPE
};
inline constexpr int kNumDTypes = 0
#define DTYPE(id, name, bytes, kind, descr) +1
#include "isa/dtypes.def"
#undef DTYPE
    ;

enum class DTypeKind : uint8_t { Bool, SInt, UInt, Float, Packed };  // Packed: MX x4 dtypes (isa/mx.h)

std::string_view dtype_name(DType t);
namespace dtype_detail {  // the size and kind columns of dtypes.def, inline: the simulator asks per operand
inline constexpr uint8_t kSize[] = {
#define DTYPE(id, name, bytes, kind, descr) uint8_t(bytes),
#include "isa/dtypes.def"
#undef DTYPE
};
inline constexpr DTypeKind kKind[] = {
#define DTYPE(id, name, bytes, kind, descr) DTypeKind::kind,
#include "isa/dtypes.def"
#undef DTYPE
};
}  // namespace dtype_detail
inline unsigned dtype_size(DType t) { return dtype_detail::kSize[static_cast<unsigned>(t)]; }  // bytes per element
inline DTypeKind dtype_kind(DType t) { return dtype_detail::kKind[static_cast<unsigned>(t)]; }
std::string_view dtype_numpy_descr(DType t);  // e.g. "<f4"; "<V2" for bfloat16
std::optional<DType> parse_dtype(std::string_view name);  // accepts the NKI names (and "bool")
inline bool is_float(DType t) { return dtype_kind(t) == DTypeKind::Float; }
inline bool is_integer(DType t) {  // bool_ counts as integer (stored as uint8); packed MX dtypes are neither
  return dtype_kind(t) != DTypeKind::Float && dtype_kind(t) != DTypeKind::Packed;
}
// The 8-bit floats the PE array multiplies (fp8 double-row and fast modes); not the MX scale float8_e8m0fnu.
inline bool is_fp8(DType t) {
  return t == DType::float8_e4m3 || t == DType::float8_e5m2 || t == DType::float8_e4m3fn;
}
// True for the dtypes numpy has natively (written as-is to .npy).
bool is_numpy_native(DType t);

// Bit-exact conversions. `bits` holds the element's raw bits in the low dtype_size(t)*8 bits.
// to_f32: exact for every float dtype (all are subsets of fp32); integers convert as C++ does
//   (int32/uint32 beyond 2^24 round to nearest even, as the hardware's up-cast does).
// from_f32: round to nearest even; per-format overflow rules (see dtype.cpp and nki-isa.md §1.4):
//   IEEE-like formats with inf overflow to ±inf; float8_e4m3fn has no inf: overflow and inf give NaN;
//   float8_e8m0fnu is unsigned exponent-only. Integers: NaN -> 0, round to nearest even, saturate.
// Packed MX dtypes (isa/mx.h) hold 4 values: to_f32 gives NaN (not a scalar), from_f32 packs 4 copies.
float to_f32(DType t, uint32_t bits);
uint32_t from_f32(DType t, float v);

// Raw element load/store (little-endian).
inline uint32_t load_bits(const uint8_t* p, unsigned size) {
  uint32_t v = 0;
  std::memcpy(&v, p, size);
  return v;
}
inline void store_bits(uint8_t* p, unsigned size, uint32_t v) { std::memcpy(p, &v, size); }

inline float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace nkisim::isa
