// alu.h - semantic bodies of the ALU operators (isa/alu_ops.def): fp32 arithmetic and integer bitvec paths.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/instruction.h"

namespace nkisim::sim {

// Class of an ALU op, straight from alu_ops.def (no dependency on the table's .cpp).
bool alu_is_bitvec(isa::AluOp op);
// Unary ops (and bypass) use only their first operand.
bool alu_is_unary(isa::AluOp op);

// Float semantics (all math in fp32, nki-isa.md §1.5):
//   comparisons give 1.0 / 0.0; logical ops treat nonzero (and NaN) as true and give 1.0 / 0.0;
//   maximum/minimum propagate NaN (as numpy does); abs_max/abs_min return the operand of larger/smaller
//   magnitude with its sign, ties -> b; power = powf; divide = IEEE a / b; bypass returns a;
//   unary ops (abs reciprocal rsqrt square relu logical_not) ignore b. Bitvec ops are not float ops:
//   callers route them to the integer path (alu_int); here they act on the values cast to int32.
float alu_f32(isa::AluOp op, float a, float b);

// out[i] = a[i] op b[i]
void alu_tt_f32(isa::AluOp op, const float* a, const float* b, float* out, size_t n);
// out[i] = reverse ? s op a[i] : a[i] op s   (reverse is ignored for unary ops and bypass)
void alu_ts_f32(isa::AluOp op, const float* a, float s, bool reverse, float* out, size_t n);

// 2-D forms over P rows of n elements (one switch per call, not per row): row i of a / b / out starts at
// a + i * as (strides in floats, any sign); the scalar of row i is s[i], or s_imm when s is null. out may
// be exactly a (or b) row for row; partial overlaps are not allowed.
void alu_tt_f32_rows(isa::AluOp op, const float* a, ptrdiff_t as, const float* b, ptrdiff_t bs, float* out,
                     ptrdiff_t os, size_t n, uint32_t P);
void alu_ts_f32_rows(isa::AluOp op, const float* a, ptrdiff_t as, const float* s, float s_imm, bool reverse,
                     float* out, ptrdiff_t os, size_t n, uint32_t P);
// tensor_scalar's two ops over P rows: row i of out = (row i of a op0 s0_i) op1 s1_i, where sK_i = sK[i * ss]
// (ss in floats, any sign) or immK when sK is null, reverseK swaps the operands of opK and op1 == bypass
// means one op. Every op is rounded to fp32 exactly as alu_ts_f32_rows(op0) followed by alu_ts_f32_rows(op1)
// in place would round it (same bits); common arithmetic pairs run in one pass over the data. out may be
// exactly a row for row.
struct TsOp {
  isa::AluOp op = isa::AluOp::bypass;
  const float* s = nullptr;
  float imm = 0.0f;
  bool reverse = false;
};
void alu_ts2_f32_rows(const TsOp& op0, const TsOp& op1, ptrdiff_t ss, const float* a, ptrdiff_t as, float* out,
                      ptrdiff_t os, size_t n, uint32_t P);

// Left fold acc = op(acc, x[j]) for j = 0..n-1 in fp32 with alu_f32 semantics (op inlined, no call per
// element). For maximum/minimum without NaNs or zeros among x and acc the result does not depend on the
// order, and a vectorised pass computes it; otherwise (and for every other op) the loop is sequential.
float alu_fold_f32(isa::AluOp op, float acc, const float* x, size_t n);

// Integer semantics for bitvec ops on 32-bit values (signed sources already sign-extended).
// right_shift is logical on the low `a_bits` bits of a; shift counts >= 32 (as unsigned) give 0;
// left_shift is a << b. Non-bitvec ops are evaluated via alu_f32 on the int32 values.
uint32_t alu_int(isa::AluOp op, uint32_t a, uint32_t b, unsigned a_bits);
void alu_tt_int(isa::AluOp op, const uint32_t* a, const uint32_t* b, unsigned a_bits, uint32_t* out, size_t n);
void alu_ts_int(isa::AluOp op, const uint32_t* a, uint32_t s, bool reverse, unsigned a_bits, uint32_t* out,
                size_t n);

}  // namespace nkisim::sim
