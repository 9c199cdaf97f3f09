// mx.cpp - OCP MX formats: packed x4 conversions, fp4 e2m1, and which instructions accept packed operands.
#include "isa/mx.h"

#include <cmath>

namespace nkisim::isa {

bool is_mx_packed(DType t) {
  return t == DType::float8_e5m2_x4 || t == DType::float8_e4m3fn_x4 || t == DType::float4_e2m1fn_x4;
}

unsigned mx_value_bits(DType t) {
  if (t == DType::float8_e5m2_x4 || t == DType::float8_e4m3fn_x4) return 8;
  if (t == DType::float4_e2m1fn_x4) return 4;
  return 0;
}

float fp4_e2m1_to_f32(uint32_t nibble) {
  static constexpr float kMag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float m = kMag[nibble & 7u];
  return (nibble & 8u) ? -m : m;
}

uint32_t f32_to_fp4_e2m1(float v) {
  if (std::isnan(v)) return 0;
  const uint32_t sign = std::signbit(v) ? 8u : 0u;
  const float a = std::fabs(v);
  // Round to nearest even between neighbours of the magnitude grid 0, .5, 1, 1.5, 2, 3, 4, 6 (codes 0..7);
  // the midpoints and the even code each rounds to: .25->0, .75->2 (1.0), 1.25->2, 1.75->4 (2.0), 2.5->4,
  // 3.5->6 (4.0), 5->6; beyond 6 saturates.
  uint32_t code;
  if (a <= 0.25f) code = 0;
  else if (a < 0.75f) code = 1;
  else if (a <= 1.25f) code = 2;
  else if (a < 1.75f) code = 3;
  else if (a <= 2.5f) code = 4;
  else if (a < 3.5f) code = 5;
  else if (a <= 5.0f) code = 6;
  else code = 7;
  return sign | code;
}

void mx_unpack(DType t, uint32_t bits, float out[4]) {
  if (mx_value_bits(t) == 4) {
    for (int q = 0; q < 4; ++q) out[q] = fp4_e2m1_to_f32(bits >> (4 * q));
    return;
  }
  const DType e = t == DType::float8_e5m2_x4 ? DType::float8_e5m2 : DType::float8_e4m3fn;
  for (int q = 0; q < 4; ++q) out[q] = to_f32(e, (bits >> (8 * q)) & 0xFFu);
}

uint32_t mx_pack(DType t, const float in[4]) {
  uint32_t w = 0;
  if (mx_value_bits(t) == 4) {
    for (int q = 0; q < 4; ++q) w |= f32_to_fp4_e2m1(in[q]) << (4 * q);
    return w;
  }
  const DType e = t == DType::float8_e5m2_x4 ? DType::float8_e5m2 : DType::float8_e4m3fn;
  for (int q = 0; q < 4; ++q) w |= (from_f32(e, in[q]) & 0xFFu) << (8 * q);
  return w;
}

std::string mx_operand_error(const Instruction& ins, int slot) {
  const AccessPattern& ap = ins.operands[slot];
  if (!ap.present() || !is_mx_packed(ap.dtype)) return "";
  const InstrInfo& inf = info(ins.op);
  const std::string opnd = std::string("operand '") + (slot < inf.num_operands ? inf.operands[slot].name : "?") + "'";
  switch (ins.op) {
    case Opcode::dma_copy:
    case Opcode::tensor_copy:
    case Opcode::sendrecv:  // a byte copy to the other core
      if (ins.operands[0].dtype != ins.operands[1].dtype)
        return "cannot cast between " + std::string(dtype_name(ins.operands[1].dtype)) + " and " +
               std::string(dtype_name(ins.operands[0].dtype)) + " (no casts for MX dtypes; copies are bit-exact)";
      return "";
    case Opcode::memset:
    case Opcode::quantize_mx:
    case Opcode::load_stationary_mx:
    case Opcode::multiply_moving_mx:
      return "";  // the instruction checks its own dtype rules
    default:
      return opnd + " has the packed MX dtype " + std::string(dtype_name(ap.dtype)) +
             "; only dma_copy, tensor_copy, sendrecv, memset, quantize_mx and nc_matmul_mx take MX dtypes (no "
             "arithmetic or casts on them)";
  }
}

}  // namespace nkisim::isa
