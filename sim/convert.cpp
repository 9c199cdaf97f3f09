// convert.cpp - run-level element conversions (fast paths for float32 and bfloat16).
#include "sim/convert.h"

#include <cmath>
#include <cstring>

namespace nkisim::sim {
using isa::DType;

void load_f32(DType t, const uint8_t* mem, int64_t step, size_t n, float* out) {
  switch (t) {
    case DType::float32:
      if (step == 4) {
        std::memcpy(out, mem, n * 4);
      } else {
        for (size_t i = 0; i < n; ++i) std::memcpy(out + i, mem + int64_t(i) * step, 4);
      }
      return;
    case DType::bfloat16:
      if (step == 2) {  // contiguous: a loop the compiler vectorises
        for (size_t i = 0; i < n; ++i) {
          uint16_t h;
          std::memcpy(&h, mem + 2 * i, 2);
          uint32_t b = uint32_t(h) << 16;
          std::memcpy(out + i, &b, 4);
        }
        return;
      }
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, mem + int64_t(i) * step, 2);
        out[i] = isa::bits_to_float(uint32_t(h) << 16);
      }
      return;
    case DType::int32:
      for (size_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, mem + int64_t(i) * step, 4);
        out[i] = float(v);
      }
      return;
    default: {
      unsigned sz = isa::dtype_size(t);
      for (size_t i = 0; i < n; ++i) out[i] = isa::to_f32(t, isa::load_bits(mem + int64_t(i) * step, sz));
      return;
    }
  }
}

void store_f32(DType t, uint8_t* mem, int64_t step, size_t n, const float* in) {
  switch (t) {
    case DType::float32:
      if (step == 4) {
        std::memcpy(mem, in, n * 4);
      } else {
        for (size_t i = 0; i < n; ++i) std::memcpy(mem + int64_t(i) * step, in + i, 4);
      }
      return;
    case DType::bfloat16:
      if (step == 2) {  // contiguous: branch-free rounding (vectorised), then fix up NaNs if there were any
        uint32_t any_nan = 0;
        for (size_t i = 0; i < n; ++i) {
          uint32_t b;
          std::memcpy(&b, in + i, 4);
          any_nan |= uint32_t((b & 0x7fffffffu) > 0x7f800000u);
          uint16_t h = uint16_t((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
          std::memcpy(mem + 2 * i, &h, 2);
        }
        if (any_nan) {
          for (size_t i = 0; i < n; ++i) {
            if (!std::isnan(in[i])) continue;
            uint16_t h = uint16_t(isa::from_f32(DType::bfloat16, in[i]));
            std::memcpy(mem + 2 * i, &h, 2);
          }
        }
        return;
      }
      for (size_t i = 0; i < n; ++i) {
        uint16_t h = bf16_from_f32_fast(in[i]);
        std::memcpy(mem + int64_t(i) * step, &h, 2);
      }
      return;
    default: {
      unsigned sz = isa::dtype_size(t);
      for (size_t i = 0; i < n; ++i) isa::store_bits(mem + int64_t(i) * step, sz, isa::from_f32(t, in[i]));
      return;
    }
  }
}

void load_raw(unsigned esize, const uint8_t* mem, int64_t step, size_t n, uint8_t* out) {
  if (step == int64_t(esize)) {
    std::memcpy(out, mem, n * esize);
    return;
  }
  switch (esize) {
    case 1:
      for (size_t i = 0; i < n; ++i) out[i] = mem[int64_t(i) * step];
      return;
    case 2:
      for (size_t i = 0; i < n; ++i) std::memcpy(out + 2 * i, mem + int64_t(i) * step, 2);
      return;
    case 4:
      for (size_t i = 0; i < n; ++i) std::memcpy(out + 4 * i, mem + int64_t(i) * step, 4);
      return;
    default:
      for (size_t i = 0; i < n; ++i) std::memcpy(out + esize * i, mem + int64_t(i) * step, esize);
  }
}

void store_raw(unsigned esize, uint8_t* mem, int64_t step, size_t n, const uint8_t* in) {
  if (step == int64_t(esize)) {
    std::memmove(mem, in, n * esize);
    return;
  }
  switch (esize) {
    case 1:
      for (size_t i = 0; i < n; ++i) mem[int64_t(i) * step] = in[i];
      return;
    case 2:
      for (size_t i = 0; i < n; ++i) std::memcpy(mem + int64_t(i) * step, in + 2 * i, 2);
      return;
    case 4:
      for (size_t i = 0; i < n; ++i) std::memcpy(mem + int64_t(i) * step, in + 4 * i, 4);
      return;
    default:
      for (size_t i = 0; i < n; ++i) std::memcpy(mem + int64_t(i) * step, in + esize * i, esize);
  }
}

void load_int(DType t, const uint8_t* mem, int64_t step, size_t n, uint32_t* out) {
  unsigned sz = isa::dtype_size(t);
  bool is_signed = isa::dtype_kind(t) == isa::DTypeKind::SInt;
  unsigned shift = 32 - 8 * sz;
  for (size_t i = 0; i < n; ++i) {
    uint32_t b = isa::load_bits(mem + int64_t(i) * step, sz);
    if (is_signed && shift) b = uint32_t(int32_t(b << shift) >> shift);
    out[i] = b;
  }
}

void store_int(DType t, uint8_t* mem, int64_t step, size_t n, const uint32_t* in) {
  unsigned sz = isa::dtype_size(t);
  for (size_t i = 0; i < n; ++i) isa::store_bits(mem + int64_t(i) * step, sz, in[i]);
}

}  // namespace nkisim::sim
