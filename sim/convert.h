// convert.h - run-level element conversions between memory and contiguous fp32 / raw / integer buffers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/dtype.h"

namespace nkisim::sim {

// Each function moves `n` elements; the memory side starts at `mem` and advances `step` bytes per
// element (step may be negative or not equal to the element size); the buffer side is contiguous.
// The dtype switch happens once per run, never per element. Float32 and bfloat16 have inline fast paths
// that are bit-identical to isa::to_f32 / isa::from_f32 (tests/sim/test_convert.cpp checks this); every
// other dtype goes through isa::to_f32 / isa::from_f32.
void load_f32(isa::DType t, const uint8_t* mem, int64_t step, size_t n, float* out);
void store_f32(isa::DType t, uint8_t* mem, int64_t step, size_t n, const float* in);

// Raw element bytes, packed densely in the buffer (esize bytes each).
void load_raw(unsigned esize, const uint8_t* mem, int64_t step, size_t n, uint8_t* out);
void store_raw(unsigned esize, uint8_t* mem, int64_t step, size_t n, const uint8_t* in);

// Integer view for bitvec ops: signed dtypes sign-extend to 32 bits, others zero-extend; stores keep the
// low dtype_size*8 bits.
void load_int(isa::DType t, const uint8_t* mem, int64_t step, size_t n, uint32_t* out);
void store_int(isa::DType t, uint8_t* mem, int64_t step, size_t n, const uint32_t* in);

// bfloat16 round-to-nearest-even for non-NaN inputs (NaN goes through isa::from_f32).
inline uint16_t bf16_from_f32_fast(float v) {
  uint32_t b = isa::float_to_bits(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) return uint16_t(isa::from_f32(isa::DType::bfloat16, v));
  return uint16_t((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

}  // namespace nkisim::sim
