// exec_tensor_mx.cpp - the MX instructions (trn3): quantize_mx (VectorE) and nc_matmul_mx as
// load_stationary_mx + multiply_moving_mx (Tensor Engine). Static rules: isa/verify_tensor_mx.cpp; here only
// what depends on the loaded MX stationary.
//
// Numerics (nki-isa.md §1.4, §3.1, §3.3; isa/mx.h for the packing and the scale layout):
// * Dequantisation: a packed value x of data partition p, element j, slot q becomes x * 2^(s - 127), s = the
//   scale byte of (p / 8, j) (float8_e8m0fnu bits; a uint8 scale tile is read as the same bits; 0xFF = NaN).
//   The product is formed in fp32 (exact unless it leaves fp32's range), as the published golden
//   einsum("kiq,kjq->ij", stat * scale_s, mov * scale_m) does.
// * The contraction index is r = 4k + q (partition k, packed slot q): products are rounded to fp32 one by
//   one and added to a running fp32 sum in r order from +0.0, like nc_matmul (sim/exec_tensor.cpp).
//   accumulate adds the sum onto dst (read as fp32) and writes back; dst is float32 or bfloat16 (RNE).
// * quantize_mx uses the NKI 0.5.0+ scale rule: for each group of 8 partitions x 4 elements,
//   X = 2^(floor(log2(amax)) - (Emax - 1)), Emax = 8 (float8_e4m3fn) or 15 (float8_e5m2), i.e. twice the
//   OCP sample algorithm's 2^(floor(log2(amax)) - Emax) (nki-isa.md §3.3, [RN] 0.5.0); so |x / X| < 2^Emax
//   never overflows. An all-zero group gets 2^-127 (byte 0); a scale exponent below -127 (tiny groups) is
//   clamped to byte 0; a group holding NaN or +-inf gets the NaN scale 0xFF and NaN values. The values
//   x / X (exact: X is a power of two) are rounded to the fp8 format to nearest even.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "isa/mx.h"
#include "sim/exec_vector_util.h"

namespace nkisim::sim {
using isa::DType;

namespace {
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// out[(4k + q) * F + j] = value q of data[k, j] x 2^(scale(k, j) - 127), all rows of `data`.
void dequantize(ExecContext& ctx, const View& data, const View& scale, float* out) {
  const uint32_t P = data.partitions;
  const size_t F = data.free_elems;
  const uint32_t* words = vec::gather_all_int(ctx, data, 0);
  uint32_t* srow = ctx.u32(1, F);
  float vals[4];
  uint32_t loaded = UINT32_MAX;
  for (uint32_t k = 0; k < P; ++k) {
    const uint32_t row = isa::mx_scale_row(k);
    if (row != loaded) {
      gather_int(scale, row, srow);
      loaded = row;
    }
    for (size_t j = 0; j < F; ++j) {
      const float s = isa::to_f32(DType::float8_e8m0fnu, srow[j] & 0xFFu);
      isa::mx_unpack(data.dtype, words[k * F + j], vals);
      for (int q = 0; q < 4; ++q) out[(size_t(4 * k + q)) * F + j] = vals[q] * s;
    }
  }
}
}  // namespace

// dst [P, F/4] x4 fp8 and dst_scale from src [P, F] bf16/fp16 (see the header for the rule).
void exec_quantize_mx(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1), sc = ctx.write(ins, 2);
  const uint32_t P = src.partitions;
  const size_t F = src.free_elems;
  const size_t C = F / 4;
  const int emax = dst.dtype == DType::float8_e4m3fn_x4 ? 8 : 15;
  const float* x = vec::gather_all_f32(ctx, src, 0);
  uint32_t* words = ctx.u32(0, size_t(P) * C);
  // Scale rows: start from the current contents (rows that hold no scale are left unchanged).
  uint32_t* srows = ctx.u32(1, size_t(sc.partitions) * C);
  for (uint32_t r = 0; r < sc.partitions; ++r) gather_int(sc, r, srows + size_t(r) * C);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t g = 0; g < P / 8; ++g)
    for (size_t c = 0; c < C; ++c) {
      float amax = 0.0f;
      bool special = false;
      for (uint32_t p = 8 * g; p < 8 * g + 8; ++p)
        for (size_t e = 4 * c; e < 4 * c + 4; ++e) {
          const float v = x[size_t(p) * F + e];
          if (!std::isfinite(v)) special = true;
          amax = std::max(amax, std::fabs(v));
        }
      uint32_t byte;
      if (special) {
        byte = 0xFF;
      } else if (amax == 0.0f) {
        byte = 0;
      } else {
        int ex;
        std::frexp(amax, &ex);  // amax = m * 2^ex, m in [0.5, 1): floor(log2(amax)) = ex - 1
        byte = uint32_t(std::clamp(ex - 1 - (emax - 1) + 127, 0, 254));
      }
      srows[size_t(isa::mx_scale_row(8 * g)) * C + c] = byte;
      for (uint32_t p = 8 * g; p < 8 * g + 8; ++p) {
        float q[4];
        for (int k = 0; k < 4; ++k) {
          const float v = x[size_t(p) * F + 4 * c + size_t(k)];
          q[k] = byte == 0xFF ? nan : std::ldexp(v, 127 - int(byte));
        }
        words[size_t(p) * C + c] = isa::mx_pack(dst.dtype, q);
      }
    }
  for (uint32_t p = 0; p < P; ++p) scatter_int(dst, p, words + size_t(p) * C);
  for (uint32_t r = 0; r < sc.partitions; ++r) scatter_int(sc, r, srows + size_t(r) * C);
}

// Loads the dequantized stationary [4K, M] (row 4k + q = packed slot q of partition k) into the PE array.
void exec_load_stationary_mx(ExecContext& ctx, const isa::Instruction& ins) {
  View s = ctx.read(ins, 0), sc = ctx.read(ins, 1);
  const uint32_t K = s.partitions;
  const size_t M = s.free_elems;
  PeState& pe = ctx.pe;
  pe.reset(s.dtype, 4 * K, uint32_t(M), false);
  pe.mx = true;
  dequantize(ctx, s, sc, pe.value.data());
  std::fill(pe.bits.begin(), pe.bits.end(), 0u);
}

// dst[M, N] (+)= W.T @ V, W = the loaded dequantized stationary [4K, M], V = the dequantized moving [4K, N].
void exec_multiply_moving_mx(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), mv = ctx.read(ins, 1), sc = ctx.read(ins, 2);
  const PeState& pe = ctx.pe;
  if (!pe.loaded || !pe.mx)
    vec::fail(ctx, ins, "the PE array holds no MX stationary (a load_stationary_mx must come first on the Tensor "
                        "engine)");
  const uint32_t K = mv.partitions, M = pe.cols;
  const size_t N = mv.free_elems;
  if (4 * K != pe.rows) {
    std::ostringstream os;
    os << "moving has " << K << " partitions but the loaded stationary has " << pe.rows / 4
       << " (the contraction sizes K must match)";
    vec::fail(ctx, ins, os.str());
  }
  if (dst.partitions != M || dst.free_elems != N) {
    std::ostringstream os;
    os << "dst has " << dst.partitions << " partitions x " << dst.free_elems << " elements but stationary.T @ moving is "
       << M << " x " << N;
    vec::fail(ctx, ins, os.str());
  }
  const uint32_t R = 4 * K;
  float* v = ctx.f32(0, size_t(R) * N);
  dequantize(ctx, mv, sc, v);
  float* acc = ctx.f32(1, size_t(M) * N);
  float* tmp = ctx.f32(2, N);
  Eigen::Map<const RowMat> W(pe.value.data(), R, M), V(v, R, N);
  Eigen::Map<RowMat> A(acc, M, N);
  Eigen::Map<Eigen::RowVectorXf> T(tmp, N);
  A.setZero();
  for (uint32_t m = 0; m < M; ++m) {
    auto a = A.row(m);
    for (uint32_t r = 0; r < R; ++r) {
      T.noalias() = W(r, m) * V.row(r);  // a separate pass: each product is rounded before the add
      a += T;
    }
  }
  float* old = ctx.f32(3, N);
  for (uint32_t m = 0; m < M; ++m) {
    float* row = acc + size_t(m) * N;
    if (ins.params.accumulate) {
      gather_f32(dst, m, old);
      for (size_t j = 0; j < N; ++j) row[j] = old[j] + row[j];
    }
    scatter_f32(dst, m, row);
  }
}

}  // namespace nkisim::sim
