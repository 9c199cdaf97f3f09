// exec_vector_reduce.cpp - reductions and statistics: tensor_reduce, tensor_partition_reduce, bn_stats, bn_aggr.
// Static rules: isa/verify_vector_reduce.cpp.
#include <cmath>
#include <limits>

#include "sim/alu.h"
#include "sim/exec_vector_util.h"

namespace nkisim::sim {
using isa::AluOp;

// dst[p, g] = op0-fold of the K = N/G consecutive data elements of group g (N, G = free sizes of data, dst).
void exec_tensor_reduce(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const AluOp op = ins.params.op0;
  const size_t G = dst.free_elems, N = data.free_elems;
  if (dst.empty()) return;
  const size_t K = N / G;
  const uint32_t P = dst.partitions;
  if (alu_is_bitvec(op)) {
    const unsigned bits = data.esize * 8;
    const uint32_t* in = vec::gather_all_int(ctx, data, 0);
    uint32_t* out = ctx.u32(1, G * P);
    for (size_t r = 0; r < G * P; ++r) {
      const uint32_t* x = in + r * K;
      uint32_t a = x[0];
      for (size_t j = 1; j < K; ++j) a = alu_int(op, a, x[j], bits);
      out[r] = a;
    }
    vec::scatter_all_int(dst, out);
    return;
  }
  const float* in = vec::gather_all_f32(ctx, data, 0);
  float* out = ctx.f32(1, G * P);
  for (size_t r = 0; r < G * P; ++r) {
    const float* x = in + r * K;
    const float a = K > 1 ? alu_fold_f32(op, x[0], x + 1, K - 1) : x[0];  // left to right, the op inlined
    out[r] = ins.params.negate ? -a : a;
  }
  vec::scatter_all_f32(dst, out);
}

// dst[0, j] = op0-fold over the partitions of data (partition order) of element j.
void exec_tensor_partition_reduce(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const AluOp op = ins.params.op0;
  if (data.empty()) return;
  const size_t N = data.free_elems;
  const uint32_t P = data.partitions;
  if (alu_is_bitvec(op)) {
    const unsigned bits = data.esize * 8;
    uint32_t* in = vec::gather_all_int(ctx, data, 0);
    for (uint32_t p = 1; p < P; ++p)
      for (size_t j = 0; j < N; ++j) in[j] = alu_int(op, in[j], in[p * N + j], bits);
    scatter_int(dst, 0, in);
    return;
  }
  float* in = vec::gather_all_f32(ctx, data, 0);
  for (uint32_t p = 1; p < P; ++p)
    for (size_t j = 0; j < N; ++j) in[j] = alu_f32(op, in[j], in[p * N + j]);
  scatter_f32(dst, 0, in);
}

namespace {
// (count, mean, count*variance) of x[0], x[2], ... (stride 2) with `n` elements, two-pass in fp32.
void moments(const float* x, size_t n, float out[3]) {
  if (n == 0) {
    out[0] = out[1] = out[2] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (size_t j = 0; j < n; ++j) sum += x[2 * j];
  const float mean = sum / float(n);
  float m2 = 0.0f;
  for (size_t j = 0; j < n; ++j) {
    const float d = x[2 * j] - mean;
    m2 += d * d;
  }
  out[0] = float(n);
  out[1] = mean;
  out[2] = m2;
}
}  // namespace

// dst[p] = (count, mean, M2) of the even-indexed then of the odd-indexed elements of data[p].
void exec_bn_stats(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const size_t N = data.free_elems;
  const uint32_t P = dst.partitions;
  const float* in = vec::gather_all_f32(ctx, data, 0);
  float* out = ctx.f32(1, 6 * size_t(P));
  for (uint32_t p = 0; p < P; ++p) {
    const float* x = in + p * N;
    moments(x, (N + 1) / 2, out + 6 * p);
    moments(x + 1, N / 2, out + 6 * p + 3);
  }
  vec::scatter_all_f32(dst, out);
}

// dst[p] = (mean, variance) of the union of the (count, mean, M2) triples in data[p] (Chan et al. combination).
void exec_bn_aggr(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const size_t N = data.free_elems;
  const uint32_t P = dst.partitions;
  const float* in = vec::gather_all_f32(ctx, data, 0);
  float* out = ctx.f32(1, 2 * size_t(P));
  for (uint32_t p = 0; p < P; ++p) {
    const float* t = in + p * N;
    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (size_t k = 0; k < N / 3; ++k) {
      const float nb = t[3 * k], mb = t[3 * k + 1], m2b = t[3 * k + 2];
      if (nb == 0.0f) continue;
      if (n == 0.0f) {
        n = nb, mean = mb, m2 = m2b;
        continue;
      }
      const float nt = n + nb, delta = mb - mean;
      mean += delta * (nb / nt);
      m2 += m2b + delta * delta * (n * nb / nt);
      n = nt;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    out[2 * p] = n == 0.0f ? nan : mean;
    out[2 * p + 1] = n == 0.0f ? nan : m2 / n;
  }
  vec::scatter_all_f32(dst, out);
}

}  // namespace nkisim::sim
