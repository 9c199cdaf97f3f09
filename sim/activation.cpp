// activation.cpp - activation function bodies (libm float routines; see activation.h for the contract).
#include "sim/activation.h"

#include <cmath>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace nkisim::sim {
using isa::ActFunc;

namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// gelu_apprx_sigmoid(x) = x * sigmoid(1.702 x) (see isa/act_funcs.def).
constexpr float kGeluSigmoidScale = 1.702f;
inline float softplus(float x) {
  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): exact for large |x|, no overflow.
  return (x > 0.0f ? x : 0.0f) + std::log1p(std::exp(-std::fabs(x)));
}

inline float eval(ActFunc f, float x) {
  switch (f) {
    case ActFunc::copy:
    case ActFunc::identity: return x;
    case ActFunc::exp: return std::exp(x);
    case ActFunc::log: return std::log(x);
    case ActFunc::square: return x * x;
    case ActFunc::sqrt: return std::sqrt(x);
    case ActFunc::rsqrt: return 1.0f / std::sqrt(x);
    case ActFunc::reciprocal: return 1.0f / x;
    case ActFunc::relu: return x != x ? x : (x > 0.0f ? x : 0.0f);
    case ActFunc::sigmoid: return sigmoid(x);
    case ActFunc::tanh: return std::tanh(x);
    case ActFunc::gelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case ActFunc::gelu_apprx_tanh:
      return 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case ActFunc::silu: return x * sigmoid(x);
    case ActFunc::softplus: return x != x ? x : softplus(x);
    case ActFunc::erf: return std::erf(x);
    case ActFunc::sin: return std::sin(x);
    case ActFunc::arctan: return std::atan(x);
    case ActFunc::sign: return x != x ? x : (x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f));
    case ActFunc::abs: return std::fabs(x);
    case ActFunc::mish: return x != x ? x : x * std::tanh(softplus(x));
    case ActFunc::prelu: return x != x ? x : (x > 0.0f ? x : 0.0f);  // slope 0 (activate2 passes its own)
    // d/dx gelu = Phi(x) + x phi(x); phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
    case ActFunc::gelu_dx:
      return 0.5f * (1.0f + std::erf(x * 0.70710678118654752f)) + x * std::exp(-0.5f * x * x) * 0.39894228040143268f;
    case ActFunc::gelu_apprx_sigmoid: return x * sigmoid(kGeluSigmoidScale * x);
    case ActFunc::gelu_apprx_sigmoid_dx: {
      const float s = sigmoid(kGeluSigmoidScale * x);
      return s + kGeluSigmoidScale * x * s * (1.0f - s);
    }
    case ActFunc::silu_dx: {
      const float s = sigmoid(x);
      return s * (1.0f + x * (1.0f - s));
    }
    case ActFunc::erf_dx: return 1.12837916709551257f * std::exp(-x * x);  // 2 / sqrt(pi) * exp(-x^2)
  }
  return x;
}

template <ActFunc F>
void loop(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = eval(F, in[i]);
}

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && defined(__GLIBC__)
// exp over a run, 8 lanes at a time, bit-identical to the libm std::exp(float) it replaces: glibc's expf
// (sysdeps/ieee754/flt-32/e_expf.c) as built for FMA machines (__expf_fma, the variant glibc selects on
// any CPU with AVX-512), operation for operation: kd = fma(InvLn2N, x, Shift), r = fma(InvLn2N, x, -(kd -
// Shift)), s = 2^(k/32) from the 32-entry table, y = fma(fma(C0, r, C1), r*r, fma(C2, r, 1)) * s, rounded
// to float. The constants are __exp2f_data's bits. Lanes with |x| >= 88 or NaN (glibc's special-case
// branch) go to std::exp itself. Checked against std::exp for all 2^32 inputs (docs/performance.md).
constexpr uint64_t kExp2fTab[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540};

// All 8 lanes. The zero-masked forms of the intrinsics below compile to the same instructions as the
// unmasked ones, whose GCC 12 definitions start from an "undefined" vector that -Wmaybe-uninitialized
// reports when inlined (GCC bug 105593).
constexpr __mmask8 kAll = 0xFF;

inline __m512d pd_bits(uint64_t b) { return _mm512_castsi512_pd(_mm512_set1_epi64(int64_t(b))); }

void exp_run(const float* in, float* out, size_t n) {
  const __m512d invln2n = pd_bits(0x40471547652b82fe), shift = pd_bits(0x4338000000000000);
  const __m512d c0 = pd_bits(0x3ebc6af84b912394), c1 = pd_bits(0x3f2ebfce50fac4f3), c2 = pd_bits(0x3f962e42ff0c52d6);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m256i top_mask = _mm256_set1_epi32(0x7ff), top88 = _mm256_set1_epi32(0x42b);  // top12(88.0f)
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 xf = _mm256_loadu_ps(in + i);
    const __m256i abstop = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(xf), 20), top_mask);
    if (_mm256_cmpge_epi32_mask(abstop, top88)) {  // |x| >= 88 or NaN somewhere: libm for these 8
      for (size_t k = i; k < i + 8; ++k) out[k] = std::exp(in[k]);
      continue;
    }
    const __m512d xd = _mm512_maskz_cvtps_pd(kAll, xf);
    const __m512d kds = _mm512_fmadd_pd(invln2n, xd, shift);
    const __m512i ki = _mm512_castpd_si512(kds);
    const __m512d kd = _mm512_sub_pd(kds, shift);
    const __m512d r = _mm512_fmsub_pd(invln2n, xd, kd);
    const __m512i idx = _mm512_and_si512(ki, _mm512_set1_epi64(31));
    __m512i t = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), kAll, idx, reinterpret_cast<const long long*>(kExp2fTab), 8);
    t = _mm512_add_epi64(t, _mm512_maskz_slli_epi64(kAll, ki, 47));
    const __m512d z = _mm512_fmadd_pd(r, c0, c1);
    const __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(r, c2, one);
    y = _mm512_fmadd_pd(z, r2, y);
    y = _mm512_mul_pd(y, _mm512_castsi512_pd(t));
    _mm256_storeu_ps(out + i, _mm512_maskz_cvtpd_ps(kAll, y));
  }
  for (; i < n; ++i) out[i] = std::exp(in[i]);
}

template <>
void loop<ActFunc::exp>(const float* in, float* out, size_t n) {
  exp_run(in, out, n);
}
#define NKISIM_VECTOR_EXP 1
#endif
}  // namespace

bool act_exp_vectorized() {
#ifdef NKISIM_VECTOR_EXP
  return true;
#else
  return false;
#endif
}

float act_f32(ActFunc f, float x) { return eval(f, x); }

void act_apply(ActFunc f, const float* in, float* out, size_t n) {
  if (f == ActFunc::copy || f == ActFunc::identity) {
    if (in != out) std::memmove(out, in, n * sizeof(float));
    return;
  }
  switch (f) {
#define ACT(id, name)   \
  case ActFunc::id:     \
    return loop<ActFunc::id>(in, out, n);
#include "isa/act_funcs.def"
#undef ACT
  }
}

}  // namespace nkisim::sim
