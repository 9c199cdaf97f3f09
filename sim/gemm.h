// gemm.h - the Tensor Engine's matrix product in the PE array's exact summation order, blocked for speed.
#pragma once
#include <cstdint>

namespace nkisim::sim {

// acc[M x N] = w[rows x M].T @ v[rows x N], all row-major fp32. For every output element the products
// w[k, m] * v[k, n] are each rounded to fp32 and added to a running fp32 sum in contraction order
// k = 0, 1, ..., rows-1 starting from +0.0 (the partial sum entering the top of the systolic array); the
// product is never fused with the add. Register-blocked (output tiles held in vector registers while k
// runs) and split by column blocks over parallel_for threads; the order of every sum is the one above, so
// the result is bit-identical to the naive triple loop whatever the blocking or thread count.
void pe_gemm(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc);

// The naive triple loop with the same semantics (reference for tests and benchmarks).
void pe_gemm_reference(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc);

}  // namespace nkisim::sim
