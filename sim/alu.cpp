// alu.cpp - ALU operator bodies; loops are instantiated per op so the compiler vectorises them.
#include "sim/alu.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace nkisim::sim {
using isa::AluOp;

namespace {
enum class Cls { Bitvec, Arith, Unary, Special };
constexpr Cls kClass[] = {
#define ALU(id, name, cls, red) Cls::cls,
#include "isa/alu_ops.def"
#undef ALU
};

inline float b2f(bool b) { return b ? 1.0f : 0.0f; }
// float -> int32 without undefined behaviour: NaN -> 0, saturating, truncating toward zero.
inline int32_t to_i32(float x) {
  if (x != x) return 0;
  if (x >= 2147483648.0f) return INT32_MAX;
  if (x < -2147483648.0f) return INT32_MIN;
  return int32_t(x);
}

// The single definition of every op's float semantics. `Op` is a constant in the loops below, so the
// switch folds away after inlining.
// always_inline: GCC otherwise keeps some instantiations as calls with the switch inside (seen in profiles).
__attribute__((always_inline)) inline float eval_f32(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::bypass: return a;
    case AluOp::add: return a + b;
    case AluOp::subtract: return a - b;
    case AluOp::multiply: return a * b;
    case AluOp::divide: return a / b;
    case AluOp::maximum: return (a != a || b != b) ? a + b : (a > b ? a : b);
    case AluOp::minimum: return (a != a || b != b) ? a + b : (a < b ? a : b);
    case AluOp::power: return std::pow(a, b);
    case AluOp::abs_max: return std::fabs(a) > std::fabs(b) ? a : b;
    case AluOp::abs_min: return std::fabs(a) < std::fabs(b) ? a : b;
    case AluOp::equal: return b2f(a == b);
    case AluOp::not_equal: return b2f(a != b);
    case AluOp::greater: return b2f(a > b);
    case AluOp::greater_equal: return b2f(a >= b);
    case AluOp::less: return b2f(a < b);
    case AluOp::less_equal: return b2f(a <= b);
    case AluOp::logical_and: return b2f(a != 0.0f && b != 0.0f);
    case AluOp::logical_or: return b2f(a != 0.0f || b != 0.0f);
    case AluOp::logical_xor: return b2f((a != 0.0f) != (b != 0.0f));
    case AluOp::logical_not: return b2f(a == 0.0f);
    case AluOp::abs: return std::fabs(a);
    case AluOp::reciprocal: return 1.0f / a;
    case AluOp::rsqrt: return 1.0f / std::sqrt(a);
    case AluOp::square: return a * a;
    case AluOp::relu: return a != a ? a : (a > 0.0f ? a : 0.0f);
    default: {  // bitvec ops on the int32 values (callers normally use the integer path)
      auto ia = uint32_t(to_i32(a)), ib = uint32_t(to_i32(b));
      switch (op) {
        case AluOp::bitwise_and: return float(int32_t(ia & ib));
        case AluOp::bitwise_or: return float(int32_t(ia | ib));
        case AluOp::bitwise_xor: return float(int32_t(ia ^ ib));
        case AluOp::invert: return float(int32_t(~ia));
        case AluOp::left_shift: return float(int32_t(ib >= 32 ? 0 : ia << ib));
        case AluOp::right_shift: return float(int32_t(ib >= 32 ? 0 : ia >> ib));
        default: return a;
      }
    }
  }
}

inline uint32_t eval_int(AluOp op, uint32_t a, uint32_t b, unsigned a_bits) {
  switch (op) {
    case AluOp::bitwise_and: return a & b;
    case AluOp::bitwise_or: return a | b;
    case AluOp::bitwise_xor: return a ^ b;
    case AluOp::invert: return ~a;
    case AluOp::left_shift: return b >= 32 ? 0u : a << b;
    case AluOp::right_shift: {
      uint32_t m = a_bits >= 32 ? a : (a & ((1u << a_bits) - 1u));
      return b >= 32 ? 0u : m >> b;
    }
    case AluOp::bypass: return a;
    default: return uint32_t(to_i32(eval_f32(op, float(int32_t(a)), float(int32_t(b)))));
  }
}

template <AluOp Op>
void loop_tt(const float* a, const float* b, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = eval_f32(Op, a[i], b[i]);
}
template <AluOp Op>
void loop_ts(const float* a, float s, bool reverse, float* out, size_t n) {
  if (reverse) {
    for (size_t i = 0; i < n; ++i) out[i] = eval_f32(Op, s, a[i]);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = eval_f32(Op, a[i], s);
  }
}
}  // namespace

bool alu_is_bitvec(AluOp op) { return kClass[size_t(op)] == Cls::Bitvec; }
bool alu_is_unary(AluOp op) { return kClass[size_t(op)] == Cls::Unary || op == AluOp::bypass || op == AluOp::invert; }

float alu_f32(AluOp op, float a, float b) { return eval_f32(op, a, b); }

void alu_tt_f32(AluOp op, const float* a, const float* b, float* out, size_t n) {
  switch (op) {
#define ALU(id, name, cls, red) \
  case AluOp::id:               \
    return loop_tt<AluOp::id>(a, b, out, n);
#include "isa/alu_ops.def"
#undef ALU
  }
}

void alu_ts_f32(AluOp op, const float* a, float s, bool reverse, float* out, size_t n) {
  if (alu_is_unary(op)) reverse = false;
  switch (op) {
#define ALU(id, name, cls, red) \
  case AluOp::id:               \
    return loop_ts<AluOp::id>(a, s, reverse, out, n);
#include "isa/alu_ops.def"
#undef ALU
  }
}

namespace {
// One element of a tensor_tensor op, exactly eval_f32(Op, a, b); maximum / minimum written branch-free
// (a NaN operand gives a + b, its NaN) so that their loops vectorise.
template <AluOp Op>
inline float tt_elem(float a, float b) {
  if constexpr (Op == AluOp::maximum || Op == AluOp::minimum) {
    const float m = Op == AluOp::maximum ? (a > b ? a : b) : (a < b ? a : b);
    return ((a != a) | (b != b)) ? a + b : m;
  } else {
    return eval_f32(Op, a, b);
  }
}
template <AluOp Op>
void tt_row(const float* __restrict x, const float* __restrict y, float* __restrict z, size_t n) {
  for (size_t j = 0; j < n; ++j) z[j] = tt_elem<Op>(x[j], y[j]);
}
template <AluOp Op>
void tt_row_into_first(float* __restrict xz, const float* __restrict y, size_t n) {
  for (size_t j = 0; j < n; ++j) xz[j] = tt_elem<Op>(xz[j], y[j]);
}
template <AluOp Op>
void tt_row_into_second(const float* __restrict x, float* __restrict yz, size_t n) {
  for (size_t j = 0; j < n; ++j) yz[j] = tt_elem<Op>(x[j], yz[j]);
}

// 16 fp32 lanes as one value (a GCC vector extension: one AVX-512 register with -march=native, split into
// narrower registers by the compiler otherwise). The ops below are IEEE fp32 per lane, so a lane computes
// what the scalar expression computes; explicit 16-lane blocks give every row of 64 elements four straight
// iterations, where the auto-vectorised loops paid for their alias checks, peeling and 8-lane steps.
typedef float F16 __attribute__((vector_size(64)));
constexpr size_t kLanes = 16;
inline F16 load16(const float* p) {
  F16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store16(float* p, F16 v) { std::memcpy(p, &v, sizeof v); }
inline F16 splat16(float s) { return F16{s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }
typedef int32_t I16 __attribute__((vector_size(64)));
// x with its quiet bit set (what an x86 add returns for a NaN operand).
inline float quieted(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u |= 0x00400000u;
  std::memcpy(&x, &u, 4);
  return x;
}
inline F16 quieted(F16 x) { return F16(I16(x) | 0x00400000); }
// The ops with a lane-wise form, and that form for T = float or F16: exactly eval_f32(Op, a, b) per lane.
template <AluOp Op>
constexpr bool kHasLanes = Op == AluOp::bypass || Op == AluOp::add || Op == AluOp::subtract ||
                           Op == AluOp::multiply || Op == AluOp::divide || Op == AluOp::maximum ||
                           Op == AluOp::minimum;
// maximum / minimum with a NaN operand give a + b, that NaN quieted; when both are NaN, which payload a + b
// returns depends on the operand order the compiler picked for the add. The previous loops returned b's for
// tensor_tensor and a's for tensor_scalar (x op s), so BNaN says which one wins, explicitly.
template <AluOp Op, bool BNaN = false, class T>
inline T lanes(T a, T b) {
  if constexpr (Op == AluOp::bypass) return a;
  else if constexpr (Op == AluOp::add) return a + b;
  else if constexpr (Op == AluOp::subtract) return a - b;
  else if constexpr (Op == AluOp::multiply) return a * b;
  else if constexpr (Op == AluOp::divide) return a / b;
  else {
    static_assert(Op == AluOp::maximum || Op == AluOp::minimum);
    const T m = Op == AluOp::maximum ? (a > b ? a : b) : (a < b ? a : b);  // vmaxps / vminps exactly
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, F16>) {  // one compare for "no NaN in the block"
      if (__builtin_expect(_mm512_cmp_ps_mask(__m512(a), __m512(b), _CMP_UNORD_Q) == 0, 1)) return m;
    }
#endif
    const auto na = a != a, nb = b != b;
    const T nan = BNaN ? (nb ? b : a) : (na ? a : b);
    return (na | nb) ? quieted(nan) : m;
  }
}
// One row in blocks of 16 lanes, then the tail element by element. z may be x or y exactly (each block is
// loaded before it is stored) or disjoint from both.
// maximum / minimum: four blocks at a time where a row has them, all loads before the stores (so z may still
// be x or y), the four tested for NaNs with one branch (the exact form per block when one has a NaN): fewer
// instructions per element, the same value in every lane. Not the other ops: where two NaNs meet in an add or
// a multiply, the payload that survives follows the operand order the compiler picks, and the unrolled loop
// picked the other one (the single-block loop's choice is kept, so outputs stay byte-identical).
template <AluOp Op>
__attribute__((always_inline)) inline void row_tt16(const float* x, const float* y, float* z, size_t n) {
  size_t j = 0;
  for (; j + 4 * kLanes <= n; j += 4 * kLanes) {
#if defined(__AVX512F__)
    if constexpr (Op == AluOp::maximum || Op == AluOp::minimum) {
      F16 a[4], b[4], r[4];
      for (int q = 0; q < 4; ++q) {
        a[q] = load16(x + j + 16 * q);
        b[q] = load16(y + j + 16 * q);
      }
      __mmask16 nan = 0;
      for (int q = 0; q < 4; ++q) {
        r[q] = Op == AluOp::maximum ? (a[q] > b[q] ? a[q] : b[q]) : (a[q] < b[q] ? a[q] : b[q]);
        nan |= _mm512_cmp_ps_mask(__m512(a[q]), __m512(b[q]), _CMP_UNORD_Q);
      }
      if (__builtin_expect(nan != 0, 0))
        for (int q = 0; q < 4; ++q) r[q] = lanes<Op, true>(a[q], b[q]);
      for (int q = 0; q < 4; ++q) store16(z + j + 16 * q, r[q]);
      continue;
    }
#endif
    break;
  }
  for (; j + kLanes <= n; j += kLanes) store16(z + j, lanes<Op, true>(load16(x + j), load16(y + j)));
  for (; j < n; ++j) z[j] = lanes<Op, true>(x[j], y[j]);
}

// Calls f(len) with len a compile-time constant for the common row lengths (a [128, 64] fp32 tile has rows of
// 64), else with n: the row functions are inlined into f's loop, so a constant length unrolls each row fully.
template <class F>
__attribute__((always_inline)) inline void by_row_len(size_t n, F&& f) {
  if (n == 64) f(std::integral_constant<size_t, 64>{});
  else if (n == 128) f(std::integral_constant<size_t, 128>{});
  else if (n == 256) f(std::integral_constant<size_t, 256>{});
  else f(n);
}

// The other ops: a row of dst is the row of an input or disjoint from both (callers guarantee it), so each case
// gets non-aliasing pointers and vectorises; one loop over possibly-aliasing pointers would fail the compiler's
// overlap check whenever dst is an input (the common in-place case) and run scalar.
template <AluOp Op>
void rows_tt(const float* a, ptrdiff_t as, const float* b, ptrdiff_t bs, float* out, ptrdiff_t os, size_t n,
             uint32_t P) {
  if constexpr (kHasLanes<Op>) {
    by_row_len(n, [=](auto len) {  // by value: the stores would otherwise make the compiler reload captures
      const float *x = a, *y = b;
      float* z = out;
      for (uint32_t i = 0; i < P; ++i, x += as, y += bs, z += os) row_tt16<Op>(x, y, z, len);
    });
    return;
  }
  for (uint32_t i = 0; i < P; ++i) {
    const float *x = a + i * as, *y = b + i * bs;
    float* z = out + i * os;
    if (z == x && z == y) {
      loop_tt<Op>(x, y, z, n);
    } else if (z == x) {
      tt_row_into_first<Op>(z, y, n);
    } else if (z == y) {
      tt_row_into_second<Op>(x, z, n);
    } else {
      tt_row<Op>(x, y, z, n);
    }
  }
}
template <AluOp Op>
void rows_ts(const float* a, ptrdiff_t as, const float* s, float s_imm, bool reverse, float* out, ptrdiff_t os,
             size_t n, uint32_t P) {
  for (uint32_t i = 0; i < P; ++i) loop_ts<Op>(a + i * as, s ? s[i] : s_imm, reverse, out + i * os, n);
}

template <AluOp Op>
float fold(float acc, const float* x, size_t n) {
  for (size_t j = 0; j < n; ++j) acc = eval_f32(Op, acc, x[j]);
  return acc;
}

// maximum / minimum fold: when neither acc nor any x[j] is NaN or a zero, max/min is a plain order-free
// selection (ties pick equal values), so any evaluation order gives the sequential result.
template <AluOp Op>
float fold_minmax(float acc, const float* x, size_t n) {
  constexpr size_t W = 16;
  if (n < 2 * W || acc != acc || acc == 0.0f) return fold<Op>(acc, x, n);
  float lane[W];
  for (size_t l = 0; l < W; ++l) lane[l] = x[l];
  uint32_t bad = 0;  // NaN or zero seen
  size_t j = 0;
  for (; j + W <= n; j += W) {
    for (size_t l = 0; l < W; ++l) {
      const float v = x[j + l];
      bad |= uint32_t(v != v) | uint32_t(v == 0.0f);
      lane[l] = Op == AluOp::maximum ? (v > lane[l] ? v : lane[l]) : (v < lane[l] ? v : lane[l]);
    }
  }
  if (bad) return fold<Op>(acc, x, n);
  for (; j < n; ++j) {
    const float v = x[j];
    if (v != v || v == 0.0f) return fold<Op>(acc, x, n);
    lane[0] = Op == AluOp::maximum ? (v > lane[0] ? v : lane[0]) : (v < lane[0] ? v : lane[0]);
  }
  for (size_t l = 0; l < W; ++l) acc = eval_f32(Op, acc, lane[l]);
  return acc;
}
}  // namespace

void alu_tt_f32_rows(AluOp op, const float* a, ptrdiff_t as, const float* b, ptrdiff_t bs, float* out, ptrdiff_t os,
                     size_t n, uint32_t P) {
  switch (op) {
#define ALU(id, name, cls, red) \
  case AluOp::id:               \
    return rows_tt<AluOp::id>(a, as, b, bs, out, os, n, P);
#include "isa/alu_ops.def"
#undef ALU
  }
}

void alu_ts_f32_rows(AluOp op, const float* a, ptrdiff_t as, const float* s, float s_imm, bool reverse, float* out,
                     ptrdiff_t os, size_t n, uint32_t P) {
  if (alu_is_unary(op)) reverse = false;
  switch (op) {
#define ALU(id, name, cls, red) \
  case AluOp::id:               \
    return rows_ts<AluOp::id>(a, as, s, s_imm, reverse, out, os, n, P);
#include "isa/alu_ops.def"
#undef ALU
  }
}

namespace {
// The fused pairs: plain arithmetic ops, neither operand swapped, and each of these ops alone (either operand
// order). Each element's intermediate stays an fp32 value in a register (no FMA contraction:
// -ffp-contract=off), so the result has the bits of two passes.
#define NKISIM_TS2_OPS(X) X(add) X(subtract) X(multiply) X(divide) X(maximum) X(minimum)
// op1 of a fused pair on op0's result r. After maximum / minimum, the previous loops' add / multiply returned
// r's NaN when both r and s1 were NaN (operand order again), so that is explicit here too.
template <AluOp Op0, AluOp Op1, class T>
inline T second(T r, T s1) {
  const T t = lanes<Op1>(r, s1);
  if constexpr ((Op0 == AluOp::maximum || Op0 == AluOp::minimum) && (Op1 == AluOp::add || Op1 == AluOp::multiply))
    return r != r ? quieted(r) : t;
  else
    return t;
}
// In 16-lane blocks (lanes<> is eval_f32 per lane); op1 == bypass is the single op.
template <AluOp Op0, AluOp Op1>
void rows_ts2(const float* a, ptrdiff_t as, const float* s0, float imm0, const float* s1, float imm1, ptrdiff_t ss,
              float* out, ptrdiff_t os, size_t n, uint32_t P) {
  static_assert(kHasLanes<Op0> && kHasLanes<Op1>);
  auto row = [](const float* x, float* y, float c0, float c1, size_t n) __attribute__((always_inline)) {
    const F16 v0 = splat16(c0), v1 = splat16(c1);
    size_t j = 0;
    for (; j + 4 * kLanes <= n; j += 4 * kLanes) {  // four blocks per step, loads before stores (as row_tt16)
      F16 r[4];
      for (int q = 0; q < 4; ++q) r[q] = second<Op0, Op1>(lanes<Op0>(load16(x + j + 16 * q), v0), v1);
      for (int q = 0; q < 4; ++q) store16(y + j + 16 * q, r[q]);
    }
    for (; j + kLanes <= n; j += kLanes) store16(y + j, second<Op0, Op1>(lanes<Op0>(load16(x + j), v0), v1));
    for (; j < n; ++j) y[j] = second<Op0, Op1>(lanes<Op0>(x[j], c0), c1);
  };
  by_row_len(n, [=](auto len) {  // by value, as in rows_tt
    const float* x = a;
    float* y = out;
    if (!s0 && !s1) {  // immediates (the common case): no per-row scalar loads or broadcasts
      for (uint32_t i = 0; i < P; ++i, x += as, y += os) row(x, y, imm0, imm1, len);
      return;
    }
    for (uint32_t i = 0; i < P; ++i, x += as, y += os) {
      const float c0 = s0 ? s0[ptrdiff_t(i) * ss] : imm0, c1 = s1 ? s1[ptrdiff_t(i) * ss] : imm1;
      row(x, y, c0, c1, len);
    }
  });
}
// One op with its operands swapped: s op x.
template <AluOp Op>
void rows_ts1_reversed(const float* a, ptrdiff_t as, const float* s0, float imm0, const float*, float, ptrdiff_t ss,
                       float* out, ptrdiff_t os, size_t n, uint32_t P) {
  for (uint32_t i = 0; i < P; ++i) {
    const float c0 = s0 ? s0[ptrdiff_t(i) * ss] : imm0;
    const float* x = a + ptrdiff_t(i) * as;
    float* y = out + ptrdiff_t(i) * os;
    const F16 v0 = splat16(c0);
    size_t j = 0;
    for (; j + kLanes <= n; j += kLanes) store16(y + j, lanes<Op>(v0, load16(x + j)));
    for (; j < n; ++j) y[j] = lanes<Op>(c0, x[j]);
  }
}
using Ts2Fn = void (*)(const float*, ptrdiff_t, const float*, float, const float*, float, ptrdiff_t, float*, ptrdiff_t,
                       size_t, uint32_t);
template <AluOp Op0>
Ts2Fn ts2_second(AluOp op1) {
  switch (op1) {
    case AluOp::bypass: return &rows_ts2<Op0, AluOp::bypass>;
#define NKISIM_TS2_CASE(id) \
  case AluOp::id:           \
    return &rows_ts2<Op0, AluOp::id>;
    NKISIM_TS2_OPS(NKISIM_TS2_CASE)
#undef NKISIM_TS2_CASE
    default: return nullptr;
  }
}
// op1 == bypass means op0 alone (reverse0 then allowed); otherwise neither operand swapped.
Ts2Fn ts2_fused(AluOp op0, bool rev0, AluOp op1, bool rev1) {
  if (rev0 || rev1) {
    if (rev1 || op1 != AluOp::bypass) return nullptr;
    switch (op0) {
      case AluOp::add: return &rows_ts1_reversed<AluOp::add>;
      case AluOp::subtract: return &rows_ts1_reversed<AluOp::subtract>;
      case AluOp::multiply: return &rows_ts1_reversed<AluOp::multiply>;
      case AluOp::divide: return &rows_ts1_reversed<AluOp::divide>;
      default: return nullptr;
    }
  }
  switch (op0) {
#define NKISIM_TS2_CASE(id) \
  case AluOp::id:           \
    return ts2_second<AluOp::id>(op1);
    NKISIM_TS2_OPS(NKISIM_TS2_CASE)
#undef NKISIM_TS2_CASE
    default: return nullptr;
  }
}
#undef NKISIM_TS2_OPS
}  // namespace

void alu_ts2_f32_rows(const TsOp& op0, const TsOp& op1, ptrdiff_t ss, const float* a, ptrdiff_t as, float* out,
                      ptrdiff_t os, size_t n, uint32_t P) {
  const bool rev0 = op0.reverse && !alu_is_unary(op0.op), rev1 = op1.reverse && !alu_is_unary(op1.op);
  if (Ts2Fn f = ts2_fused(op0.op, rev0, op1.op, rev1)) return f(a, as, op0.s, op0.imm, op1.s, op1.imm, ss, out, os, n, P);
  // Row by row: op0 into the row, then op1 in place on it while it is in L1.
  for (uint32_t i = 0; i < P; ++i) {
    float* y = out + ptrdiff_t(i) * os;
    alu_ts_f32(op0.op, a + ptrdiff_t(i) * as, op0.s ? op0.s[ptrdiff_t(i) * ss] : op0.imm, rev0, y, n);
    if (op1.op != AluOp::bypass) alu_ts_f32(op1.op, y, op1.s ? op1.s[ptrdiff_t(i) * ss] : op1.imm, rev1, y, n);
  }
}

float alu_fold_f32(AluOp op, float acc, const float* x, size_t n) {
  switch (op) {
    case AluOp::add: return fold<AluOp::add>(acc, x, n);
    case AluOp::subtract: return fold<AluOp::subtract>(acc, x, n);
    case AluOp::multiply: return fold<AluOp::multiply>(acc, x, n);
    case AluOp::maximum: return fold_minmax<AluOp::maximum>(acc, x, n);
    case AluOp::minimum: return fold_minmax<AluOp::minimum>(acc, x, n);
    default:
      for (size_t j = 0; j < n; ++j) acc = eval_f32(op, acc, x[j]);
      return acc;
  }
}

uint32_t alu_int(AluOp op, uint32_t a, uint32_t b, unsigned a_bits) { return eval_int(op, a, b, a_bits); }

void alu_tt_int(AluOp op, const uint32_t* a, const uint32_t* b, unsigned a_bits, uint32_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = eval_int(op, a[i], b[i], a_bits);
}

void alu_ts_int(AluOp op, const uint32_t* a, uint32_t s, bool reverse, unsigned a_bits, uint32_t* out, size_t n) {
  if (alu_is_unary(op)) reverse = false;
  if (reverse) {
    for (size_t i = 0; i < n; ++i) out[i] = eval_int(op, s, a[i], a_bits);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = eval_int(op, a[i], s, a_bits);
  }
}

}  // namespace nkisim::sim
