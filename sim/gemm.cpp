// gemm.cpp - pe_gemm (see gemm.h): a register-blocked kernel that keeps, per output element, the PE
// array's order of operations (sequential k from +0.0, every product rounded before it is added).
//
// Why this is exact: each lane of an accumulator vector is one output element; at step k it receives
// round(round(w[k,m] * v[k,n]) + sum) exactly as the scalar loop does. The blocking only changes which
// output elements are computed together, never the order within one element's sum. keep() makes the
// multiply and the add separate instructions whatever the build's -ffp-contract (tests/sim/
// test_tensor_engine.cpp checks an fp32 case where fusing would change the result).
#include "sim/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/parallel.h"

namespace nkisim::sim {

namespace {

typedef float vf16 __attribute__((vector_size(64)));
typedef float vf16u __attribute__((vector_size(64), aligned(4)));  // unaligned loads/stores

inline vf16 splat(float s) { return vf16{s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }
inline vf16 load(const float* p) { return *reinterpret_cast<const vf16u*>(p); }
inline void store(float* p, vf16 x) { *reinterpret_cast<vf16u*>(p) = x; }
// An empty asm the product must pass through as a register: the compiler cannot contract the multiply and
// the following add into an FMA, whatever -ffp-contract says (it costs no instruction).
inline void keep(vf16& x) {
#if defined(__x86_64__) && defined(__AVX512F__)
  asm("" : "+v"(x));
#elif defined(__x86_64__) && defined(__AVX__)
  asm("" : "+x"(x));
#else
  asm("" : "+m"(x));
#endif
}

#if defined(__AVX512F__)
constexpr int kMR = 6;  // output rows per micro-tile: 6 x 4 vectors = 24 of the 32 zmm registers
constexpr int kNV = 4;  // 16-float vectors per micro-tile row (64 columns)
#else
constexpr int kMR = 3;  // AVX2 and below: a vf16 is 2+ registers
constexpr int kNV = 2;
#endif
constexpr uint32_t kNB = 16 * kNV;  // columns per block
constexpr uint32_t kRowGroups = 4;  // row-block groups per column block (work items for parallel_for)

// c[i][j] over rows k: wp = packed weights [rows][MR] of this row block; v = column block start.
template <int MR, int NV>
void micro(const float* wp, const float* v, uint32_t rows, uint32_t N, float* acc) {
  vf16 c[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) c[i][j] = vf16{};  // +0.0
  for (uint32_t k = 0; k < rows; ++k) {
    const float* vr = v + size_t(k) * N;
    vf16 x[NV];
    for (int j = 0; j < NV; ++j) x[j] = load(vr + 16 * j);
    const float* wr = wp + size_t(k) * MR;
    for (int i = 0; i < MR; ++i) {
      const vf16 b = splat(wr[i]);
      for (int j = 0; j < NV; ++j) {
        vf16 prod = b * x[j];  // rounded to fp32
        keep(prod);
        c[i][j] = c[i][j] + prod;  // then added
      }
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) store(acc + size_t(i) * N + 16 * j, c[i][j]);
}

template <int MR>
void micro_nv(int nv, const float* wp, const float* v, uint32_t rows, uint32_t N, float* acc) {
  switch (nv) {
    case 1: return micro<MR, 1>(wp, v, rows, N, acc);
    case 2: return micro<MR, 2>(wp, v, rows, N, acc);
#if defined(__AVX512F__)
    case 3: return micro<MR, 3>(wp, v, rows, N, acc);
    case 4: return micro<MR, 4>(wp, v, rows, N, acc);
#endif
    default: return;
  }
}

void micro_any(int mr, int nv, const float* wp, const float* v, uint32_t rows, uint32_t N, float* acc) {
  switch (mr) {
    case 1: return micro_nv<1>(nv, wp, v, rows, N, acc);
    case 2: return micro_nv<2>(nv, wp, v, rows, N, acc);
    case 3: return micro_nv<3>(nv, wp, v, rows, N, acc);
#if defined(__AVX512F__)
    case 4: return micro_nv<4>(nv, wp, v, rows, N, acc);
    case 5: return micro_nv<5>(nv, wp, v, rows, N, acc);
    case 6: return micro_nv<6>(nv, wp, v, rows, N, acc);
#endif
    default: return;
  }
}

// Scalar columns [n0, n1) of output rows [m0, m1) (the part of N that is not a multiple of 16).
void tail_columns(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, uint32_t m0, uint32_t m1,
                  uint32_t n0, uint32_t n1, float* acc) {
  for (uint32_t m = m0; m < m1; ++m)
    for (uint32_t n = n0; n < n1; ++n) {
      float s = 0.0f;
      for (uint32_t k = 0; k < rows; ++k) {
        float prod = w[size_t(k) * M + m] * v[size_t(k) * N + n];
        asm("" : "+m"(prod));  // never fused with the add (see keep())
        s = s + prod;
      }
      acc[size_t(m) * N + n] = s;
    }
}

}  // namespace

void pe_gemm_reference(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc) {
  tail_columns(w, v, rows, M, N, 0, M, 0, N, acc);
}

void pe_gemm(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc) {
  if (M == 0 || N == 0) return;
  if (rows == 0) {
    std::fill(acc, acc + size_t(M) * N, 0.0f);
    return;
  }
  // Weights packed per row block: block b holds rows [b*MR, b*MR + mr) as [rows][mr].
  const uint32_t mblocks = (M + kMR - 1) / kMR;
  thread_local std::vector<float> packed;
  packed.resize(size_t(mblocks) * kMR * rows);
  for (uint32_t b = 0; b < mblocks; ++b) {
    const uint32_t m0 = b * kMR, mr = std::min<uint32_t>(kMR, M - m0);
    float* dst = packed.data() + size_t(b) * kMR * rows;
    for (uint32_t k = 0; k < rows; ++k) std::memcpy(dst + size_t(k) * mr, w + size_t(k) * M + m0, mr * sizeof(float));
  }
  const float* wp = packed.data();

  const uint32_t vec_cols = N / 16 * 16;  // columns handled by the vector kernel
  const uint32_t nblocks = (vec_cols + kNB - 1) / kNB;
  // Work items are (column block, group of row blocks): small enough that a helper thread which wakes late
  // still takes its share (kRowGroups groups of row blocks per column block).
  const uint32_t groups = std::min<uint32_t>(kRowGroups, mblocks);
  auto column_block = [&](size_t item) {
    const uint32_t nb = uint32_t(item / groups), g = uint32_t(item % groups);
    const uint32_t n0 = nb * kNB, nv = std::min<uint32_t>(kNB, vec_cols - n0) / 16;
    for (uint32_t b = g * mblocks / groups; b < (g + 1) * mblocks / groups; ++b) {
      const uint32_t m0 = b * kMR, mr = std::min<uint32_t>(kMR, M - m0);
      micro_any(int(mr), int(nv), wp + size_t(b) * kMR * rows, v + n0, rows, N, acc + size_t(m0) * N + n0);
    }
  };
  // Split over threads only when a block is worth a wake-up (~64K multiply-adds or more per block).
  const uint64_t work = uint64_t(rows) * M * N;
  if (nblocks * groups > 1 && work >= (uint64_t(1) << 20)) {
    parallel_for(size_t(nblocks) * groups, column_block);
  } else {
    for (size_t item = 0; item < size_t(nblocks) * groups; ++item) column_block(item);
  }
  if (vec_cols < N) tail_columns(w, v, rows, M, N, 0, M, vec_cols, N, acc);
}

}  // namespace nkisim::sim
