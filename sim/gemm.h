// gemm.h - the Tensor Engine's matrix product in the PE array's exact summation order, blocked for speed.
#pragma once
#include <cstdint>

#include "isa/dtype.h"

namespace nkisim::sim {

// The moving operand as it sits in memory: `rows` x N elements of `dtype`, element (k, n) at
// base + k * row_step + n * dtype_size (each row dense). Converted to fp32 a column panel at a time.
struct GemmMoving {
  const uint8_t* base = nullptr;
  int64_t row_step = 0;  // bytes
  isa::DType dtype = isa::DType::float32;
};

// The fp32 result: M rows x N, row m at base + m * row_step floats. With `accumulate` every element
// becomes round(old + result), the PSUM accumulation; otherwise it is overwritten with the result.
struct GemmOut {
  float* base = nullptr;
  int64_t row_step = 0;  // floats
  bool accumulate = false;
};

// out[M x N] (+)= w[rows x M].T @ moving[rows x N], w row-major fp32. For every output element the
// products w[k, m] * v[k, n] are each rounded to fp32 and added to a running fp32 sum in contraction order
// k = 0, 1, ..., rows-1 starting from +0.0 (the partial sum entering the top of the systolic array); the
// product is never fused with the add; with accumulate the finished sum is then added to the old value.
// Register-blocked (output tiles held in vector registers while k runs) and split by column panels over
// parallel_for threads, each converting its own panel of the moving operand and writing its own columns
// of the output; the order of every sum is the one above, so the result is bit-identical to the naive
// triple loop whatever the blocking or thread count. `out` must not overlap the moving operand.
void pe_gemm(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving, const GemmOut& out);

// pe_gemm begun on the parallel_for helper threads, returning before it is done, so the caller can go on with
// other work meanwhile: `w` is packed before the call returns (it may change after), but the moving operand's
// bytes must not change and `out` must not be read or written until pe_gemm_settle(). At most two products of
// a thread run at once (a third start first waits for the oldest, the calling thread taking part); a product
// whose output overlaps the output or moving operand of the one started before it runs after it (per column
// panel when both write the same elements alike, so each element's accumulations keep their order). pe_gemm
// settles them first. Without a free helper thread, or for a small product, it runs to the end at once.
void pe_gemm_start(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving,
                   const GemmOut& out);
// Packs the weights (and checks their range) for this thread's next pe_gemm_start or pe_gemm while products
// may still be running (it does not touch theirs), so that the packing is off the path between them:
// the next call in the object's lifetime uses them if its w, rows and M are these (w's values must not change
// meanwhile). They are forgotten when the object goes out of scope, used or not.
class PreparedWeights {
 public:
  PreparedWeights(const float* w, uint32_t rows, uint32_t M);
  ~PreparedWeights();
  PreparedWeights(const PreparedWeights&) = delete;
  PreparedWeights& operator=(const PreparedWeights&) = delete;
};
// Waits for the products this thread's pe_gemm_start left running, the calling thread taking part; a no-op
// when there is none.
void pe_gemm_settle();

// acc[M x N] = w.T @ v with v and acc row-major fp32 (the form above with a dense fp32 moving operand).
void pe_gemm(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc);

// The naive triple loop with the same semantics (reference for tests and benchmarks).
void pe_gemm_reference(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc);

}  // namespace nkisim::sim
