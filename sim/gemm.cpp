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
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
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
// Three buffers per thread: up to two products left running (pe_gemm_start) read theirs, PreparedWeights packs
// into the third.
constexpr int kWeightBuffers = 3;
const float* pack_weights(const float* w, uint32_t rows, uint32_t M, int buffer = 0) {
  const uint32_t mblocks = (M + kMR - 1) / kMR;
  thread_local std::vector<float> buffers[kWeightBuffers];
  std::vector<float>& packed = buffers[buffer];
  packed.resize(size_t(mblocks) * kMR * rows);
  uint32_t b0 = 0;  // blocks packed below
#if defined(__AVX512F__) && defined(__AVX512VL__)
  // Row by row (w read in order, once): each whole block's kMR values of row k are one masked 8-lane move. Only
  // the first `fast` blocks, whose 8-lane load stays inside the row; the rest go through the loops below.
  static_assert(kMR <= 8);
  const uint32_t fast = M >= 8 ? std::min<uint32_t>(M / kMR, (M - 8) / kMR + 1) : 0;
  for (uint32_t k = 0; k < rows && fast; ++k) {
    const float* src = w + size_t(k) * M;
    float* dst = packed.data() + size_t(k) * kMR;
    for (uint32_t b = 0; b < fast; ++b)
      _mm256_mask_storeu_ps(dst + size_t(b) * kMR * rows, (1u << kMR) - 1, _mm256_loadu_ps(src + b * kMR));
  }
  b0 = fast;
#endif
  for (uint32_t b = b0; b < mblocks; ++b) {
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
  int buffer = 0;             // which of its buffers
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

// How a product splits into work items (Job's fields of the same names).
struct Shape {
  uint32_t mblocks = 0, groups = 1;
  size_t items = 0;
  bool parallel = false;
};
Shape job_shape(uint32_t rows, uint32_t M, uint32_t N) {
  Shape sh;
  sh.mblocks = (M + kMR - 1) / kMR;
  const uint32_t npanels = (N + kNB - 1) / kNB;
  sh.groups = std::max<uint32_t>(1, std::min<uint32_t>(sh.mblocks, (kMinItems + npanels - 1) / npanels));
  sh.items = size_t(npanels) * sh.groups;
  // Split over threads only when an item is worth a wake-up (~64K multiply-adds or more per call).
  sh.parallel = sh.items > 1 && uint64_t(rows) * M * N >= (uint64_t(1) << 20);
  return sh;
}

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
  const Shape sh = job_shape(rows, M, N);
  j.mblocks = sh.mblocks;
  j.groups = sh.groups;
  j.items = sh.items;
  j.parallel = sh.parallel;
  j.moving = moving;
  j.out = out;
  j.wr = have ? pre.wr : fma_range(w, size_t(rows) * M);
  return j;
}

// The products pe_gemm_start left running: a queue of at most kDepth jobs owned by the thread that started them.
// Its items are claimed in order, the older job's first, by worker loops on the helper threads (one
// parallel_start job, kept while products keep coming) and by the owner whenever it waits. A job whose output
// overlaps the output or moving operand of the job before it is ordered after it: item by item when both split
// their output alike (item i writes the same elements: the accumulation order of every element is kept), else
// after the whole job. Two queued jobs keep the helpers busy while the owner executes the instructions between
// two products (DMA copies, the next stationary), instead of idling at the end of each product.
constexpr uint64_t kDepth = 2;
constexpr uint32_t kMaxQueuedItems = 64;
constexpr int kWorkerIdleMicros = 100;  // a worker loop with nothing to claim leaves after this (host tuning)

struct Queued {
  Job job;
  uint64_t seq = 0;  // the job's number (from 1); job s lives in Stream::q[s % kDepth]
  enum class Dep : uint8_t { none, per_item, all } dep = Dep::none;  // on job seq - 1
  uint32_t next = 0, end = 0;          // items [next, end) not claimed yet (under Stream::mu)
  std::atomic<uint32_t> left{0};       // items not finished
  std::atomic<uint64_t> done_seq{0};   // >= seq once every item finished (job numbers only grow)
  std::atomic<uint64_t> item_done[kMaxQueuedItems] = {};  // >= seq once item i finished
};

struct Stream {
  std::mutex mu;
  Queued q[kDepth];
  uint64_t last = 0;                   // the last job started (written by the owner under mu)
  std::atomic<uint64_t> published{0};  // items published and claimed so far (under mu; read without it to poll)
  std::atomic<uint64_t> claimed{0};
  bool closing = false;  // under mu: pe_gemm_settle runs; worker loops leave once nothing is left to claim
  unsigned workers = 0;  // under mu: worker loops started and not left
  bool pool_job = false;  // owner: a parallel_start job to join

  struct Claim {
    Queued* x = nullptr;
    uint32_t item = 0;
  };
  // The helpers claim a job's items from the front, the owner from the back: consecutive products into one
  // PSUM tile then mostly give each column panel to the same thread, whose cache holds its output.
  Claim claim_locked(bool owner) {
    for (uint64_t s = last >= kDepth ? last - kDepth + 1 : 1; s <= last; ++s) {
      Queued& x = q[s % kDepth];
      if (x.next < x.end) {
        claimed.fetch_add(1, std::memory_order_relaxed);
        return {&x, owner ? --x.end : x.next++};
      }
    }
    return {};
  }
  Claim claim(bool owner) {
    if (published.load(std::memory_order_acquire) == claimed.load(std::memory_order_relaxed)) return {};
    std::lock_guard<std::mutex> l(mu);
    return claim_locked(owner);
  }
  void run(const Claim& c) {
    Queued& x = *c.x;
    const uint64_t s = x.seq;
    if (x.dep != Queued::Dep::none) {
      const Queued& p = q[(s - 1) % kDepth];
      const std::atomic<uint64_t>& flag = x.dep == Queued::Dep::per_item ? p.item_done[c.item] : p.done_seq;
      while (flag.load(std::memory_order_acquire) < s - 1) pause();
    }
    x.job.item(c.item);
    x.item_done[c.item].store(s, std::memory_order_release);
    if (x.left.fetch_sub(1, std::memory_order_acq_rel) == 1) x.done_seq.store(s, std::memory_order_release);
  }
  bool done(uint64_t s) const { return s == 0 || q[s % kDepth].done_seq.load(std::memory_order_acquire) >= s; }
  // The owner: takes part until job s has finished.
  void wait(uint64_t s) {
    while (!done(s)) {
      if (const Claim c = claim(true); c.x) run(c);
      else pause();
    }
  }
  // A helper thread's loop: items as they come, until pe_gemm_settle or kWorkerIdleMicros without any.
  void worker() {
    auto idle_since = std::chrono::steady_clock::now();
    for (unsigned spins = 1;; ++spins) {
      Claim c = claim(false);
      if (!c.x && (spins & 63) == 0) {
        const bool idle = std::chrono::steady_clock::now() - idle_since > std::chrono::microseconds(kWorkerIdleMicros);
        std::lock_guard<std::mutex> l(mu);
        if (closing || idle) {
          c = claim_locked(false);
          if (!c.x) {
            --workers;
            return;
          }
        }
      }
      if (!c.x) {
        pause();
        continue;
      }
      run(c);
      idle_since = std::chrono::steady_clock::now();
    }
  }
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  // A buffer of pack_weights that no unfinished job reads.
  int free_buffer() const {
    for (int b = 0; b < kWeightBuffers; ++b) {
      bool used = false;
      for (uint64_t k = 0; k < kDepth; ++k) used |= q[k].seq && !done(q[k].seq) && q[k].job.buffer == b;
      if (!used) return b;
    }
    return 0;  // unreachable: at most kDepth < kWeightBuffers jobs are unfinished
  }
};
thread_local Stream t_stream;  // this thread's products left running
}  // namespace

PreparedWeights::PreparedWeights(const float* w, uint32_t rows, uint32_t M) {
  const int buffer = t_stream.free_buffer();
  t_prepared = Prepared{w, rows, M, pack_weights(w, rows, M, buffer), fma_range(w, size_t(rows) * M), buffer};
}
PreparedWeights::~PreparedWeights() { t_prepared = Prepared{}; }

void pe_gemm_settle() {
  Stream& st = t_stream;
  if (st.done(st.last) && st.done(st.last - (st.last > 0)) && !st.pool_job) return;
  {
    std::lock_guard<std::mutex> l(st.mu);
    st.closing = true;
  }
  for (uint64_t s = st.last >= kDepth ? st.last - kDepth + 1 : 1; s <= st.last; ++s) st.wait(s);
  if (st.pool_job) parallel_join();  // the worker loops leave (a loop no helper started runs here and leaves)
  st.pool_job = false;
  std::lock_guard<std::mutex> l(st.mu);
  st.closing = false;
  st.workers = 0;
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

namespace {
// Bytes [lo, hi) a product writes (its output) or reads (its moving operand).
struct Span {
  uintptr_t lo = 0, hi = 0;
  bool meets(const Span& o) const { return lo < o.hi && o.lo < hi; }
};
Span out_span(const Job& j) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(j.out.base);
  return {a, a + (uint64_t(j.M - 1) * uint64_t(j.out.row_step) + j.N) * 4};
}
Span moving_span(const Job& j) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(j.moving.base);
  return {a, a + uint64_t(j.rows - 1) * uint64_t(j.moving.row_step) + uint64_t(j.N) * isa::dtype_size(j.moving.dtype)};
}
}  // namespace

void pe_gemm_start(const float* w, uint32_t rows, uint32_t M, uint32_t N, const GemmMoving& moving,
                   const GemmOut& out) {
  const Shape sh = job_shape(rows, M, N);
  if (M == 0 || N == 0 || !sh.parallel || sh.items > kMaxQueuedItems || parallel_threads() <= 1) {
    pe_gemm(w, rows, M, N, moving, out);  // after the running products, on this thread alone
    return;
  }
  Stream& st = t_stream;
  // At most kDepth jobs unfinished: the oldest finishes first (this thread takes part), its slot is reused.
  const uint64_t s = st.last + 1;
  if (s > kDepth) st.wait(s - kDepth);
  // Weights prepared while the products ran, or packed now into a buffer no unfinished job reads.
  const Job j = make_job(w, rows, M, N, moving, out, st.free_buffer());
  Queued::Dep dep = Queued::Dep::none;
  if (!st.done(s - 1)) {
    const Job& p = st.q[(s - 1) % kDepth].job;
    const Span o = out_span(j), po = out_span(p);
    const bool reads_after = moving_span(j).meets(po), writes_read = o.meets(moving_span(p));
    if (o.meets(po) || reads_after || writes_read) {
      const bool alike = j.out.base == p.out.base && j.out.row_step == p.out.row_step && j.M == p.M && j.N == p.N &&
                         j.groups == p.groups && !reads_after && !writes_read;
      dep = alike ? Queued::Dep::per_item : Queued::Dep::all;
    }
  }
  bool start_workers = false;
  {
    std::lock_guard<std::mutex> l(st.mu);  // claimers read the slot under the lock
    Queued& x = st.q[s % kDepth];  // job s - kDepth's, finished
    x.job = j;
    x.seq = s;
    x.dep = dep;
    x.next = 0;
    x.end = uint32_t(j.items);
    x.left.store(uint32_t(j.items), std::memory_order_relaxed);
    st.last = s;
    st.published.fetch_add(j.items, std::memory_order_release);
    if (st.workers == 0) {
      start_workers = true;
      st.workers = parallel_threads() - 1;
    }
  }
  if (!start_workers) return;
  if (st.pool_job) parallel_join();  // the loops that left
  st.pool_job = parallel_start(parallel_threads() - 1, [&st](size_t) { st.worker(); });
  if (!st.pool_job) {  // no free helper thread: this thread runs them now
    {
      std::lock_guard<std::mutex> l(st.mu);
      st.workers = 0;
    }
    st.wait(s - 1);
    st.wait(s);
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
