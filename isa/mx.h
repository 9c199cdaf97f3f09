// mx.h - OCP microscaling (MX) formats: the packed x4 dtypes, fp4 e2m1 conversions, the rules for which
// instructions may touch packed operands, and the MX scale layout in SBUF (nki-isa.md §1.4, §3.1, §3.3).
//
// Packing (our choice, consistent with quantize_mx being layout preserving): value q (q = 0..3) of a packed
// element sits in bits [q*w, q*w + w) of the little-endian container, w = 8 for the fp8 x4 dtypes (32-bit
// container: in memory simply 4 consecutive fp8 bytes) and w = 4 for float4_e2m1fn_x4 (16-bit container, as
// nki-language.md §3 and nki-isa.md §1.4 give it).
// fp4 e2m1 (OCP MX v1.0): sign, 2 exponent bits (bias 1), 1 mantissa bit; values 0, 0.5, 1, 1.5, 2, 3, 4, 6;
// no inf, no NaN. Encoding rounds to nearest even; overflow and +-inf saturate to +-6 (the OCP spec's
// saturating conversion); NaN encodes as +0 (the format has no NaN; our choice, documented here).
#pragma once
#include <cstdint>
#include <string>

#include "isa/dtype.h"
#include "isa/instruction.h"

namespace nkisim::isa {

// float8_e5m2_x4, float8_e4m3fn_x4, float4_e2m1fn_x4.
bool is_mx_packed(DType t);
// Bits per packed value: 8 (fp8 x4) or 4 (fp4 x4); 0 for other dtypes.
unsigned mx_value_bits(DType t);

float fp4_e2m1_to_f32(uint32_t nibble);  // low 4 bits
uint32_t f32_to_fp4_e2m1(float v);

// The 4 values of a packed element, exactly (every fp8/fp4 value is an fp32 value).
void mx_unpack(DType t, uint32_t bits, float out[4]);
// Packs 4 values, each converted with its format's round-to-nearest-even rule (isa::from_f32 for fp8).
uint32_t mx_pack(DType t, const float in[4]);

// "No casts for MX types" (nki-isa.md §1.4): packed operands are accepted only by the copies (dma_copy,
// tensor_copy: same dtype on both sides, bit-exact), memset (the value is replicated into all 4 slots; the
// front end allows only 0) and the MX instructions. Returns "" when operand `slot` of `ins` is fine, else the
// message (without the mnemonic prefix).
std::string mx_operand_error(const Instruction& ins, int slot);

// Scale placement (nki-isa.md §3.1 nc_matmul_mx, §3.3 quantize_mx): a scale group is 8 partitions x the 4
// packed values of one element; the scale of data partition p (relative to the data operand) lives in
// partition mx_scale_row(p) of the scale operand (relative to its start partition, whose offset inside its
// quadrant, 0/4/8/12, packs up to four scale tensors per quadrant): row i = p / 8 goes to (i / 4) * 32 + i % 4.
inline uint32_t mx_scale_row(uint32_t p) { return (p / 8 / 4) * 32 + (p / 8) % 4; }
// Partitions the scale operand must span for a data operand of P partitions (P a multiple of 32, or P <= 32).
inline uint32_t mx_scale_partitions(uint32_t P) { return P == 0 ? 0 : mx_scale_row(P - 1) + 1; }

}  // namespace nkisim::isa
