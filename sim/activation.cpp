// activation.cpp - activation function bodies (libm float routines; see activation.h for the contract).
#include "sim/activation.h"

#include <cmath>
#include <cstring>

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
}  // namespace

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
