// verify_tensor_mx.cpp - rules of quantize_mx, load_stationary_mx, multiply_moving_mx (executors:
// sim/exec_tensor_mx.cpp; packing and scale layout: isa/mx.h). What depends on the loaded MX stationary
// (K and M against the moving operand) is checked by the executor.
#include <sstream>

#include "isa/mx.h"
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
void packed(const Check& c, int slot) {
  if (is_mx_packed(c.dtype(slot))) return;
  c.fail(std::string(c.name(slot)) + " must be float8_e5m2_x4, float8_e4m3fn_x4 or float4_e2m1fn_x4, got " +
             dt(c.dtype(slot)),
         slot);
}

void scale_dtype(const Check& c, int slot) {
  if (c.dtype(slot) == DType::float8_e8m0fnu || c.dtype(slot) == DType::uint8) return;
  c.fail(std::string(c.name(slot)) + " must be float8_e8m0fnu or uint8, got " + dt(c.dtype(slot)), slot);
}

// Data operands of the MX instructions: P a multiple of 32 (<= 128).
void mx_partitions(const Check& c, int slot) {
  const uint32_t P = c.parts(slot);
  if (P > 0 && P % 32 == 0 && P <= 128) return;
  c.fail(std::string(c.name(slot)) + " has " + std::to_string(P) +
             " partitions; MX data needs a multiple of 32 (at most 128)",
         slot);
}

// The scale operand of a data operand [P, F] (x4 elements): at least mx_scale_partitions(P) partitions, F each.
void scale_shape(const Check& c, int slot, uint32_t P, uint64_t F) {
  const uint32_t need = mx_scale_partitions(P);
  if (c.parts(slot) >= need && c.free(slot) == F) return;
  std::ostringstream os;
  os << c.name(slot) << " has " << c.parts(slot) << " partitions x " << c.free(slot) << " elements; the scales of " << P
     << " data partitions x " << F << " elements need at least " << need
     << " partitions (scale of partition p at row (p/8/4)*32 + (p/8)%4) x " << F << " elements";
  c.fail(os.str(), slot);
}
}  // namespace

void verify_quantize_mx(const Check& c) {
  if (c.dtype(1) != DType::bfloat16 && c.dtype(1) != DType::float16)
    c.fail("src must be bfloat16 or float16, got " + dt(c.dtype(1)), 1);
  if (c.dtype(0) != DType::float8_e4m3fn_x4 && c.dtype(0) != DType::float8_e5m2_x4)
    c.fail("dst must be float8_e4m3fn_x4 or float8_e5m2_x4, got " + dt(c.dtype(0)), 0);
  scale_dtype(c, 2);
  const uint32_t P = c.parts(1);
  const uint64_t F = c.free(1);
  mx_partitions(c, 1);
  if (F % 4 != 0) c.fail("src has " + std::to_string(F) + " elements per partition; need a multiple of 4", 1);
  if (c.parts(0) != P || c.free(0) != F / 4) {
    std::ostringstream os;
    os << "dst has " << c.parts(0) << " partitions x " << c.free(0) << " elements but src [" << P << ", " << F
       << "] quantizes to [" << P << ", " << F / 4 << "] x4 elements";
    c.fail(os.str(), 0);
  }
  scale_shape(c, 2, P, F / 4);
}

void verify_load_stationary_mx(const Check& c) {
  packed(c, 0);
  scale_dtype(c, 1);
  mx_partitions(c, 0);
  const uint64_t M = c.free(0);
  if (M == 0 || M > c.t.pe_cols || M % 2 != 0) {
    std::ostringstream os;
    os << "stationary has " << M << " elements per partition; it needs an even count of at most " << c.t.pe_cols
       << " (the PE columns)";
    c.fail(os.str(), 0);
  }
  scale_shape(c, 1, c.parts(0), M);
}

void verify_multiply_moving_mx(const Check& c) {
  packed(c, 1);
  scale_dtype(c, 2);
  mx_partitions(c, 1);
  scale_shape(c, 2, c.parts(1), c.free(1));
  if (c.dtype(0) != DType::float32 && c.dtype(0) != DType::bfloat16)
    c.fail("dst must be float32 or bfloat16, got " + dt(c.dtype(0)), 0);
  const uint64_t nmax = c.dtype(0) == DType::bfloat16 ? 8192 : 4096;  // the moving free size (nki-isa.md §3.1)
  if (c.free(1) > nmax)
    c.fail(std::string(c.name(1)) + " free size " + std::to_string(c.free(1)) + " exceeds " + std::to_string(nmax) +
               " for a " + dt(c.dtype(0)) + " dst",
           1);
}

}  // namespace nkisim::isa::rules
