// gemm.cpp - pe_gemm (see gemm.h): a register-blocked kernel that keeps, per output element, the PE
// array's order of operations (sequential k from +0.0, every product rounded before it is added).
//
// Why this is exact: each lane of an accumulator vector is one output element; at step k it receives
// round(round(w[k,m] * v[k,n]) + sum) exactly as the scalar loop does. The blocking only changes which
// output elements are computed together, never the order within one element's sum. keep() makes the
// multiply and the add separate instructions whatever the build's -ffp-contract (tests/sim/
// test_tensor_engine.cpp checks an fp32 case where fusing would change the result).
//
// Fused multiply-add where it is the same operation: when a product w[k,m] * v[k,n] is exactly representable
// in fp32, round(w * v) = w * v, so round(round(w * v) + sum) = round(w * v + sum) = fma(w, v, sum), bit for bit,
// signed zeros included. Products of bf16 / fp16 / fp8 / int8 values (at most 11 significant bits each, so at
// most 22 in the product) are exact unless they leave fp32's normal range. fma_range() checks exactly that on
// the values: every value finite, with at most 11 significant bits, not subnormal, and the largest and the
// smallest nonzero exponents of the weights and of a panel so that every product lies in [2^-126, 2^127].
// Then the kernel issues one FMA per product instead of a multiply and an add (half the instructions, the
// same sums in the same order); otherwise the product is rounded first as always.
//
// Work items are (column panel, group of row blocks). An item converts its panel of the moving operand
// (rows x up to kNB columns) to fp32 in a thread-local buffer, runs the row blocks of its group over it and
// writes (or accumulates into) its columns of the output, so the conversion and the PSUM write are spread
// over the threads with the products.
#include "sim/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

// Biased exponents of n fp32 values: the largest, the smallest of the nonzero ones (255 when all are zero), and
// whether all of them are finite, normal or zero, with at most 11 significant bits.
struct ExpRange {
  uint32_t lo = 255, hi = 0;
  bool ok = true;
};
ExpRange fma_range(const float* p, size_t n) {
  // On magnitudes as integers (their order is the floats' order): the largest, the smallest nonzero one (as
  // magnitude - 1, unsigned, so a zero wraps to the top), and the OR of every value's low mantissa bits.
  uint32_t big = 0, small1 = ~0u, low_bits = 0;
  size_t i = 0;
  {  // 32 values at a time in two independent chains (GCC vector extensions: AVX-512 registers)
    typedef uint32_t vu16 __attribute__((vector_size(64)));
    typedef uint32_t vu16u __attribute__((vector_size(64), aligned(4)));
    vu16 vbig[2] = {}, vsmall[2] = {vu16{} + ~0u, vu16{} + ~0u}, vbits[2] = {};
    for (; i + 32 <= n; i += 32)
      for (int h = 0; h < 2; ++h) {
        const vu16 u = *reinterpret_cast<const vu16u*>(p + i + 16 * h);
        const vu16 mag = u & 0x7fffffffu, m1 = mag - 1;
        vbits[h] |= u;
        vbig[h] = vbig[h] > mag ? vbig[h] : mag;
        vsmall[h] = vsmall[h] < m1 ? vsmall[h] : m1;
      }
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 16; ++k) {
        big = std::max(big, vbig[h][k]);
        small1 = std::min(small1, vsmall[h][k]);
        low_bits |= vbits[h][k];
      }
  }
  for (; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, p + i, 4);
    low_bits |= u;
    big = std::max(big, u & 0x7fffffffu);
    small1 = std::min(small1, (u & 0x7fffffffu) - 1);
  }
  // Exponents: 255 for the smallest when all are zero; a subnormal gives 0, an infinity or NaN 255 for the largest.
  const uint32_t lo = small1 == ~0u ? 255u : (small1 + 1) >> 23, hi = big >> 23;
  return ExpRange{lo, hi, (low_bits & 0x1fffu) == 0 && hi < 255 && lo > 0};
}
// A bf16 panel (rows x width values, row k at src + k * row_step) to fp32 rows of `width` floats, with the
// ExpRange of the converted values in the same pass: fma_range's checks on the values as they are stored,
// only the top 16 bits of each fp32 can be nonzero (so at most 8 significant bits). The rows lie a partition
// apart in simulated memory, each on its own host page, which the hardware prefetchers do not follow: the
// rows a few ahead are fetched by hand.
ExpRange load_bf16_panel(const uint8_t* src, int64_t row_step, uint32_t rows, uint32_t width, float* out) {
  typedef uint32_t vu16 __attribute__((vector_size(64)));
  typedef uint32_t vu16u __attribute__((vector_size(64), aligned(4)));
  typedef uint16_t vh16u __attribute__((vector_size(32), aligned(2)));
  constexpr uint32_t kAhead = 6;
  const uint32_t vec = width / 16 * 16, bytes = width * 2;
  for (uint32_t k = 0; k < std::min(rows, kAhead); ++k)
    for (uint32_t b = 0; b < bytes; b += 64) __builtin_prefetch(src + k * row_step + b);
  vu16 vbig = {}, vsmall = vu16{} + ~0u;
  uint32_t big = 0, small1 = ~0u;
  for (uint32_t k = 0; k < rows; ++k) {
    const uint8_t* r = src + k * row_step;
    if (k + kAhead < rows)
      for (uint32_t b = 0; b < bytes; b += 64) __builtin_prefetch(r + kAhead * row_step + b);
    float* o = out + size_t(k) * width;
    for (uint32_t n = 0; n < vec; n += 16) {
      const vu16 u = __builtin_convertvector(*reinterpret_cast<const vh16u*>(r + 2 * n), vu16) << 16;
      *reinterpret_cast<vu16u*>(o + n) = u;
      const vu16 mag = u & 0x7fffffffu, m1 = mag - 1;
      vbig = vbig > mag ? vbig : mag;
      vsmall = vsmall < m1 ? vsmall : m1;
    }
    for (uint32_t n = vec; n < width; ++n) {
      uint16_t h;
      std::memcpy(&h, r + 2 * n, 2);
      const uint32_t u = uint32_t(h) << 16;
      std::memcpy(o + n, &u, 4);
      big = std::max(big, u & 0x7fffffffu);
      small1 = std::min(small1, (u & 0x7fffffffu) - 1);
    }
  }
  for (int l = 0; l < 16; ++l) {
    big = std::max(big, vbig[l]);
    small1 = std::min(small1, vsmall[l]);
  }
  const uint32_t lo = small1 == ~0u ? 255u : (small1 + 1) >> 23, hi = big >> 23;
  return ExpRange{lo, hi, hi < 255 && lo > 0};
}
// Every product of a weight in `w` and a value in `v` is exact and in [2^-126, 2^127]: (hi_w - 127) + (hi_v - 127)
// + 2 <= 127 bounds it above (below 2^128 with at most 22 significant bits), (lo_w - 127) + (lo_v - 127) >= -126
// below (zero products are exact).
bool fma_exact(const ExpRange& w, const ExpRange& v) {
  return w.ok && v.ok && w.hi + v.hi <= 379 && (w.lo == 255 || v.lo == 255 || w.lo + v.lo >= 128);
}
// At least this many work items per call when the row blocks allow it (more groups re-convert the panel
// once per group, fewer leave a late helper thread nothing to take). Host tuning, not a hardware number.
constexpr uint32_t kMinItems = 8;

// out rows [0, MR) x vector columns [0, 16 NV) = wp.T @ panel. wp = packed weights [rows][MR] of this row
// block; panel = [rows][pstride] fp32; out row i at out + i * ostride.
template <int MR, int NV, bool ACC, bool FMA>
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
#if defined(__AVX512F__)
        if constexpr (FMA) {  // exact products only (fma_exact): the same value as below
          c[i][j] = vf16(_mm512_fmadd_ps(__m512(b), __m512(x[j]), __m512(c[i][j])));
          continue;
        }
#endif
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

template <int MR, bool ACC, bool FMA>
void micro_nv(int nv, const float* wp, const float* panel, uint32_t pstride, uint32_t rows, float* out,
              int64_t ostride) {
  switch (nv) {
    case 1: return micro<MR, 1, ACC, FMA>(wp, panel, pstride, rows, out, ostride);
    case 2: return micro<MR, 2, ACC, FMA>(wp, panel, pstride, rows, out, ostride);
#if defined(__AVX512F__)
    case 3: return micro<MR, 3, ACC, FMA>(wp, panel, pstride, rows, out, ostride);
    case 4: return micro<MR, 4, ACC, FMA>(wp, panel, pstride, rows, out, ostride);
#endif
    default: return;
  }
}

template <bool ACC, bool FMA>
void micro_mr(int mr, int nv, const float* wp, const float* panel, uint32_t pstride, uint32_t rows, float* out,
              int64_t ostride) {
  switch (mr) {
    case 1: return micro_nv<1, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
    case 2: return micro_nv<2, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
    case 3: return micro_nv<3, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
#if defined(__AVX512F__)
    case 4: return micro_nv<4, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
    case 5: return micro_nv<5, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
    case 6: return micro_nv<6, ACC, FMA>(nv, wp, panel, pstride, rows, out, ostride);
#endif
    default: return;
  }
}

template <bool ACC>
void micro_any(int mr, int nv, bool fma, const float* wp, const float* panel, uint32_t pstride, uint32_t rows,
               float* out, int64_t ostride) {
#if defined(__AVX512F__)
  if (fma) return micro_mr<ACC, true>(mr, nv, wp, panel, pstride, rows, out, ostride);
#endif
  (void)fma;
  micro_mr<ACC, false>(mr, nv, wp, panel, pstride, rows, out, ostride);
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
// Two buffers per thread: PreparedWeights packs into the one the running product (pe_gemm_start) does not read.
const float* pack_weights(const float* w, uint32_t rows, uint32_t M, int buffer = 0) {
  const uint32_t mblocks = (M + kMR - 1) / kMR;
  thread_local std::vector<float> buffers[2];
  std::vector<float>& packed = buffers[buffer];
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

namespace {
// One product split into work items: (column panel, group of row blocks).
struct Job {
  const float* wp = nullptr;  // packed weights (pack_weights: the buffer of the thread that made the job)
  int buffer = 0;             // which of its two buffers
  uint32_t rows = 0, M = 0, N = 0, mblocks = 0, groups = 1;
  size_t items = 0;
  GemmMoving moving;
  GemmOut out;
  ExpRange wr;
  bool parallel = false;  // worth splitting over threads

  void item(size_t it) const {
    const uint32_t p = uint32_t(it / groups), g = uint32_t(it % groups);
    const uint32_t n0 = p * kNB, width = std::min<uint32_t>(kNB, N - n0), vec = width / 16 * 16;
    const unsigned esize = isa::dtype_size(moving.dtype);
    thread_local std::vector<float> panel_buf;
    panel_buf.resize(size_t(rows) * width);
    float* panel = panel_buf.data();
    bool fma = false;
    if (moving.dtype == isa::DType::bfloat16) {
      const ExpRange vr = load_bf16_panel(moving.base + int64_t(n0) * 2, moving.row_step, rows, width, panel);
      fma = fma_exact(wr, vr);
    } else {
      for (uint32_t k = 0; k < rows; ++k)
        load_f32(moving.dtype, moving.base + k * moving.row_step + int64_t(n0) * esize, esize, width,
                 panel + size_t(k) * width);
      fma = wr.ok && fma_exact(wr, fma_range(panel, size_t(rows) * width));
    }
    for (uint32_t b = g * mblocks / groups; b < (g + 1) * mblocks / groups; ++b) {
      const uint32_t m0 = b * kMR, mr = std::min<uint32_t>(kMR, M - m0);
      const float* wb = wp + size_t(b) * kMR * rows;
      float* o = out.base + int64_t(m0) * out.row_step + n0;
      if (vec) {
        if (out.accumulate)
          micro_any<true>(int(mr), int(vec / 16), fma, wb, panel, width, rows, o, out.row_step);
        else
          micro_any<false>(int(mr), int(vec / 16), fma, wb, panel, width, rows, o, out.row_step);
      }
      if (vec < width) tail_columns(wb, int(mr), panel, width, rows, vec, width, out, o);
    }
  }
};

// Weights packed ahead by PreparedWeights (in the buffer the running product does not read), with their range.
struct Prepared {
  const float* w = nullptr;  // nullptr: none
  uint32_t rows = 0, M = 0;
  const float* wp = nullptr;
  ExpRange wr;
  int buffer = 0;
};
thread_local Prepared t_prepared;

Job make_job(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving, const GemmOut& out,
             int buffer = 0) {
  Job j;
  const Prepared pre = t_prepared;
  t_prepared = Prepared{};
  const bool have = pre.w == w && pre.rows == rows && pre.M == M;
  j.buffer = have ? pre.buffer : buffer;
  j.wp = have ? pre.wp : pack_weights(w, rows, M, buffer);
  j.rows = rows;
  j.M = M;
  j.N = N;
  j.mblocks = (M + kMR - 1) / kMR;
  const uint32_t npanels = (N + kNB - 1) / kNB;
  j.groups = std::max<uint32_t>(1, std::min<uint32_t>(j.mblocks, (kMinItems + npanels - 1) / npanels));
  j.items = size_t(npanels) * j.groups;
  j.moving = moving;
  j.out = out;
  j.wr = have ? pre.wr : fma_range(w, size_t(rows) * M);
  // Split over threads only when an item is worth a wake-up (~64K multiply-adds or more per call).
  j.parallel = j.items > 1 && uint64_t(rows) * M * N >= (uint64_t(1) << 20);
  return j;
}

// The product pe_gemm_start left running on the helper threads (it reads the calling thread's packed weights).
thread_local Job t_started;
thread_local bool t_pending = false;
thread_local int t_started_buffer = 0;  // the packing buffer t_started reads
}  // namespace

PreparedWeights::PreparedWeights(const float* w, uint32_t rows, uint32_t M) {
  const int buffer = t_pending ? 1 - t_started_buffer : 0;
  t_prepared = Prepared{w, rows, M, pack_weights(w, rows, M, buffer), fma_range(w, size_t(rows) * M), buffer};
}
PreparedWeights::~PreparedWeights() { t_prepared = Prepared{}; }

void pe_gemm_settle() {
  if (!t_pending) return;
  parallel_join();
  t_pending = false;
}

void pe_gemm(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving, const GemmOut& out) {
  pe_gemm_settle();  // its packed weights and panels are about to be reused
  if (M == 0 || N == 0) {
    t_prepared = Prepared{};
    return;
  }
  const Job j = make_job(w, rows, M, N, moving, out);
  if (j.parallel) {
    parallel_for(j.items, [&j](size_t it) { j.item(it); });
  } else {
    for (size_t it = 0; it < j.items; ++it) j.item(it);
  }
}

void pe_gemm_start(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving,
                   const GemmOut& out) {
  pe_gemm_settle();
  if (M == 0 || N == 0) {
    t_prepared = Prepared{};
    return;
  }
  // Weights prepared while the previous product ran, or packed now (nothing runs any more: either buffer).
  t_started = make_job(w, rows, M, N, moving, out);
  t_started_buffer = t_started.buffer;
  const Job* j = &t_started;  // this thread's: the helpers get the pointer
  if (j->parallel && parallel_start(j->items, [j](size_t it) { j->item(it); })) {
    t_pending = true;
    return;
  }
  for (size_t it = 0; it < j->items; ++it) j->item(it);
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
