// activation.h - Scalar Engine activation functions (isa/act_funcs.def), evaluated in fp32.
#pragma once
#include <cstddef>

#include "isa/instruction.h"

namespace nkisim::sim {

// We evaluate every function with the C library's float routines (expf, tanhf, erff, ...), not the
// hardware's piece-wise polynomial tables (nki-isa.md §1.6), so results can differ from hardware in the
// last bits, and outside each function's documented valid range (e.g. sin beyond [-pi, pi], where the
// hardware's cubic gives garbage) we return the mathematically correct value instead.
//   copy/identity x; exp; log; square x*x; sqrt; rsqrt 1/sqrt(x); reciprocal 1/x; relu max(x, 0) (NaN
//   propagates); sigmoid 1/(1+exp(-x)); tanh; gelu 0.5*x*(1+erf(x/sqrt 2)) (exact erf form);
//   gelu_apprx_tanh 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))); silu x*sigmoid(x);
//   softplus log(1+exp(x)) (overflow-safe form); erf; sin; arctan; sign (-1, 0, 1; NaN propagates); abs;
//   mish x*tanh(softplus(x)); prelu x if x > 0 else 0 (no slope here: activate2 applies its relu_param).
float act_f32(isa::ActFunc f, float x);

// out[i] = f(in[i]); in and out may be the same buffer.
void act_apply(isa::ActFunc f, const float* in, float* out, size_t n);

// True when act_apply(exp, ...) runs the 8-lane AVX-512 expf (sim/activation.cpp), which is bit-identical to
// std::exp(float) of glibc on FMA machines (bench/expf_exhaustive.cpp checks all 2^32 inputs); false when it
// calls std::exp per element.
bool act_exp_vectorized();

}  // namespace nkisim::sim
