// gemm.cpp - pe_gemm (see gemm.h): a register-blocked kernel that keeps, per output element, the PE
// array's order of operations (sequential k from +0.0, every product rounded before it is added).
//
// Why this is exact: each lane of an accumulator vector is one output element; at step k it receives
// round(round(w[k,m] * v[k,n]) + sum) exactly as the scalar loop does. The blocking only changes which
// output elements are computed together, never the order within one element's sum. keep() makes the
// multiply and the add separate instructions whatever the build's -ffp-contract (tests/sim/
// test_tensor_engine.cpp checks an fp32 case where fusing would change the result).
//
// Work items are (column panel, group of row blocks). An item converts its panel of the moving operand
// (rows x up to kNB columns) to fp32 in a thread-local buffer, runs the row blocks of its group over it and
// writes (or accumulates into) its columns of the output, so the conversion and the PSUM write are spread
// over the threads with the products.
#include "sim/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/convert.h"
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
inline void keep(float& x) { asm("" : "+m"(x)); }

#if defined(__AVX512F__)
constexpr int kMR = 6;  // output rows per micro-tile: 6 x 4 vectors = 24 of the 32 zmm registers
constexpr int kNV = 4;  // 16-float vectors per micro-tile row (64 columns)
#else
constexpr int kMR = 3;  // AVX2 and below: a vf16 is 2+ registers
constexpr int kNV = 2;
#endif
constexpr uint32_t kNB = 16 * kNV;  // columns per panel
// At least this many work items per call when the row blocks allow it (more groups re-convert the panel
// once per group, fewer leave a late helper thread nothing to take). Host tuning, not a hardware number.
constexpr uint32_t kMinItems = 16;

// out rows [0, MR) x vector columns [0, 16 NV) = wp.T @ panel. wp = packed weights [rows][MR] of this row
// block; panel = [rows][pstride] fp32; out row i at out + i * ostride.
template <int MR, int NV, bool ACC>
void micro(const float* wp, const float* panel, uint32_t pstride, uint32_t rows, float* out, int64_t ostride) {
  vf16 c[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) c[i][j] = vf16{};  // +0.0
  for (uint32_t k = 0; k < rows; ++k) {
    const float* vr = panel + size_t(k) * pstride;
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
    for (int j = 0; j < NV; ++j) {
      float* o = out + i * ostride + 16 * j;
      store(o, ACC ? load(o) + c[i][j] : c[i][j]);
    }
}

template <int MR, bool ACC>
void micro_nv(int nv, const float* wp, const float* panel, uint32_t pstride, uint32_t rows, float* out,
              int64_t ostride) {
  switch (nv) {
    case 1: return micro<MR, 1, ACC>(wp, panel, pstride, rows, out, ostride);
    case 2: return micro<MR, 2, ACC>(wp, panel, pstride, rows, out, ostride);
#if defined(__AVX512F__)
    case 3: return micro<MR, 3, ACC>(wp, panel, pstride, rows, out, ostride);
    case 4: return micro<MR, 4, ACC>(wp, panel, pstride, rows, out, ostride);
#endif
    default: return;
  }
}

template <bool ACC>
void micro_any(int mr, int nv, const float* wp, const float* panel, uint32_t pstride, uint32_t rows, float* out,
               int64_t ostride) {
  switch (mr) {
    case 1: return micro_nv<1, ACC>(nv, wp, panel, pstride, rows, out, ostride);
    case 2: return micro_nv<2, ACC>(nv, wp, panel, pstride, rows, out, ostride);
    case 3: return micro_nv<3, ACC>(nv, wp, panel, pstride, rows, out, ostride);
#if defined(__AVX512F__)
    case 4: return micro_nv<4, ACC>(nv, wp, panel, pstride, rows, out, ostride);
    case 5: return micro_nv<5, ACC>(nv, wp, panel, pstride, rows, out, ostride);
    case 6: return micro_nv<6, ACC>(nv, wp, panel, pstride, rows, out, ostride);
#endif
    default: return;
  }
}

// Scalar columns [n0, n1) of a panel for output rows [0, mr) of one row block (the columns past the last
// multiple of 16).
void tail_columns(const float* wp, int mr, const float* panel, uint32_t pstride, uint32_t rows, uint32_t n0,
                  uint32_t n1, const GemmOut& out, float* orow0) {
  for (int i = 0; i < mr; ++i)
    for (uint32_t n = n0; n < n1; ++n) {
      float s = 0.0f;
      for (uint32_t k = 0; k < rows; ++k) {
        float prod = wp[size_t(k) * mr + i] * panel[size_t(k) * pstride + n];
        keep(prod);  // never fused with the add
        s = s + prod;
      }
      float* o = orow0 + i * out.row_step + n;
      *o = out.accumulate ? *o + s : s;
    }
}

// Weights packed per row block: block b holds rows [b*kMR, b*kMR + mr) as [rows][mr].
const float* pack_weights(const float* w, uint32_t rows, uint32_t M) {
  const uint32_t mblocks = (M + kMR - 1) / kMR;
  thread_local std::vector<float> packed;
  packed.resize(size_t(mblocks) * kMR * rows);
  for (uint32_t b = 0; b < mblocks; ++b) {
    const uint32_t m0 = b * kMR, mr = std::min<uint32_t>(kMR, M - m0);
    float* dst = packed.data() + size_t(b) * kMR * rows;
    if (mr == uint32_t(kMR)) {
      for (uint32_t k = 0; k < rows; ++k)
        for (int i = 0; i < kMR; ++i) dst[size_t(k) * kMR + i] = w[size_t(k) * M + m0 + i];
    } else {
      for (uint32_t k = 0; k < rows; ++k)
        for (uint32_t i = 0; i < mr; ++i) dst[size_t(k) * mr + i] = w[size_t(k) * M + m0 + i];
    }
  }
  return packed.data();
}

}  // namespace

void pe_gemm_reference(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc) {
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      float s = 0.0f;
      for (uint32_t k = 0; k < rows; ++k) {
        float prod = w[size_t(k) * M + m] * v[size_t(k) * N + n];
        keep(prod);
        s = s + prod;
      }
      acc[size_t(m) * N + n] = s;
    }
}

void pe_gemm(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving, const GemmOut& out) {
  if (M == 0 || N == 0) return;
  const float* wp = pack_weights(w, rows, M);
  const uint32_t mblocks = (M + kMR - 1) / kMR;
  const uint32_t npanels = (N + kNB - 1) / kNB;
  const uint32_t groups = std::max<uint32_t>(1, std::min<uint32_t>(mblocks, (kMinItems + npanels - 1) / npanels));
  const unsigned esize = isa::dtype_size(moving.dtype);
  auto item = [&](size_t it) {
    const uint32_t p = uint32_t(it / groups), g = uint32_t(it % groups);
    const uint32_t n0 = p * kNB, width = std::min<uint32_t>(kNB, N - n0), vec = width / 16 * 16;
    thread_local std::vector<float> panel_buf;
    panel_buf.resize(size_t(rows) * width);
    float* panel = panel_buf.data();
    for (uint32_t k = 0; k < rows; ++k)
      load_f32(moving.dtype, moving.base + k * moving.row_step + int64_t(n0) * esize, esize, width,
               panel + size_t(k) * width);
    for (uint32_t b = g * mblocks / groups; b < (g + 1) * mblocks / groups; ++b) {
      const uint32_t m0 = b * kMR, mr = std::min<uint32_t>(kMR, M - m0);
      const float* wb = wp + size_t(b) * kMR * rows;
      float* o = out.base + int64_t(m0) * out.row_step + n0;
      if (vec) {
        if (out.accumulate)
          micro_any<true>(int(mr), int(vec / 16), wb, panel, width, rows, o, out.row_step);
        else
          micro_any<false>(int(mr), int(vec / 16), wb, panel, width, rows, o, out.row_step);
      }
      if (vec < width) tail_columns(wb, int(mr), panel, width, rows, vec, width, out, o);
    }
  };
  const size_t items = size_t(npanels) * groups;
  // Split over threads only when an item is worth a wake-up (~64K multiply-adds or more per call).
  if (items > 1 && uint64_t(rows) * M * N >= (uint64_t(1) << 20)) {
    parallel_for(items, item);
  } else {
    for (size_t it = 0; it < items; ++it) item(it);
  }
}

void pe_gemm(const float* w, const float* v, uint32_t rows, uint32_t M, uint32_t N, float* acc) {
  GemmMoving moving;
  moving.base = reinterpret_cast<const uint8_t*>(v);
  moving.row_step = int64_t(N) * 4;
  GemmOut out;
  out.base = acc;
  out.row_step = N;
  pe_gemm(w, rows, M, N, moving, out);
}

}  // namespace nkisim::sim
