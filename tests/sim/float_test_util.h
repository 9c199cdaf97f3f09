// float_test_util.h - random fp32 data with specials and bit-level comparisons, for the tests that check a
// fast kernel against the plain loop it replaces (test_fast_paths.cpp, test_alu_rows.cpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "isa/dtype.h"

namespace floattest {

// x cut to bfloat16 precision (its high 16 bits). The mask goes through an empty asm: GCC 12.2 (-O1 and up)
// drops a conditional `x = bits_to_float(float_to_bits(x) & 0xffff0000u)` altogether (it expands the constant
// 16-bit clear as a partial-register insert and loses it under the branch), which left the "bf16" test data
// full fp32 values.
inline float bf16_cut(float x) {
  uint32_t mask = 0xffff0000u;
  asm("" : "+r"(mask));
  return nkisim::isa::bits_to_float(nkisim::isa::float_to_bits(x) & mask);
}

// n fp32 values ~ N(0, 3); with probability special_rate a special instead: +-0, +-inf, NaNs with payloads,
// a subnormal, a tiny negative. With bf16 every value is cut to bfloat16 precision (its high 16 bits).
inline std::vector<float> random_values(size_t n, uint32_t seed, double special_rate, bool bf16 = false) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            nkisim::isa::bits_to_float(0x7fc00123u),  // quiet NaN with a payload
                            nkisim::isa::bits_to_float(0xffa00000u),
                            std::numeric_limits<float>::denorm_min(),
                            -1e-39f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    float x = nd(rng);
    if (u(rng) < special_rate) x = specials[rng() % 8];
    if (bf16) x = bf16_cut(x);
    v[i] = x;
  }
  return v;
}

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Bit-identical, except that where both are NaN the payloads may differ: when two NaNs meet in one
// multiply or add, which operand's payload survives depends on the operand order the compiler picked
// for the commutative instruction (x86 returns the first source's NaN); neither the hardware spec nor
// numpy defines it (docs/performance.md).
inline bool same_bits_or_both_nan(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (nkisim::isa::float_to_bits(a[i]) != nkisim::isa::float_to_bits(b[i]) && !(std::isnan(a[i]) && std::isnan(b[i])))
      return false;
  return true;
}

}  // namespace floattest
