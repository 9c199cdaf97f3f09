// exec_vector_gpsimd.cpp - GpSimd instructions: iota and affine_select (int32 affine patterns), local_gather,
// sequence_bounds, nonzero_with_count, topk. Static rules: isa/verify_vector_gpsimd.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "sim/exec_vector_util.h"

namespace nkisim::sim {
namespace {

// The affine pattern of iota/affine_select: value(p, k) = offset + p*channel_multiplier + sum(i_d * step_d),
// (i_0..i_3) = element k of the partition in mixed radix num0..num3 (num3 innermost); int32 with wrap-around.
struct Affine {
  uint32_t offset, chan;
  uint32_t step[4];
  uint32_t num[4];

  explicit Affine(const isa::InstrParams& p)
      : offset(uint32_t(p.offset)),
        chan(uint32_t(p.chan_mult)),
        step{uint32_t(p.step0), uint32_t(p.step1), uint32_t(p.step2), uint32_t(p.step3)},
        num{p.num0, p.num1, p.num2, p.num3} {}
  uint64_t elements() const { return uint64_t(num[0]) * num[1] * num[2] * num[3]; }
  // Values of partition p in element order into out[0 .. elements()).
  void row(uint32_t p, int32_t* out) const {
    const uint32_t base = offset + p * chan;
    size_t k = 0;
    for (uint32_t a = 0; a < num[0]; ++a)
      for (uint32_t b = 0; b < num[1]; ++b)
        for (uint32_t c = 0; c < num[2]; ++c) {
          uint32_t v = base + a * step[0] + b * step[1] + c * step[2];
          for (uint32_t d = 0; d < num[3]; ++d, v += step[3]) out[k++] = int32_t(v);
        }
  }
};

bool compare_i32(isa::AluOp op, int32_t v) {
  switch (op) {
    case isa::AluOp::equal: return v == 0;
    case isa::AluOp::not_equal: return v != 0;
    case isa::AluOp::greater: return v > 0;
    case isa::AluOp::greater_equal: return v >= 0;
    case isa::AluOp::less: return v < 0;
    case isa::AluOp::less_equal: return v <= 0;
    default: return false;
  }
}
}  // namespace

// dst[p, k] = the affine value (int32), converted to dst's dtype (vec::i32_to_bits).
void exec_iota(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0);
  const Affine a(ins.params);
  if (dst.empty()) return;
  const size_t n = dst.free_elems, es = dst.esize;
  int32_t* v = reinterpret_cast<int32_t*>(ctx.u32(0, n));
  uint8_t* row = ctx.bytes(0, n * es);
  for (uint32_t p = 0; p < dst.partitions; ++p) {
    a.row(p, v);
    for (size_t k = 0; k < n; ++k) isa::store_bits(row + k * es, unsigned(es), vec::i32_to_bits(dst.dtype, v[k]));
    scatter_raw(dst, p, row);
  }
}

// dst = on_true where op0(affine value, 0) holds, else imm0 in dst's dtype; on_true keeps its bits when the
// dtypes are equal, else goes through fp32.
void exec_affine_select(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), on_true = ctx.read(ins, 1);
  const isa::AluOp op = ins.params.op0;
  const Affine a(ins.params);
  if (dst.empty()) return;
  const size_t n = dst.free_elems;
  const uint32_t P = dst.partitions;
  int32_t* v = reinterpret_cast<int32_t*>(ctx.u32(0, n));
  if (on_true.dtype == dst.dtype) {
    const size_t es = dst.esize;
    uint8_t* t = vec::gather_all_raw(ctx, on_true, 0);
    const uint32_t fill = isa::from_f32(dst.dtype, ins.params.imm0);
    for (uint32_t p = 0; p < P; ++p) {
      a.row(p, v);
      uint8_t* r = t + p * n * es;
      for (size_t k = 0; k < n; ++k)
        if (!compare_i32(op, v[k])) isa::store_bits(r + k * es, unsigned(es), fill);
    }
    vec::scatter_all_raw(dst, t);
    return;
  }
  float* t = vec::gather_all_f32(ctx, on_true, 0);
  for (uint32_t p = 0; p < P; ++p) {
    a.row(p, v);
    float* r = t + p * n;
    for (size_t k = 0; k < n; ++k)
      if (!compare_i32(op, v[k])) r[k] = ins.params.imm0;
  }
  vec::scatter_all_f32(dst, t);
}

namespace {
constexpr uint32_t kCorePartitions = 16;  // each of the 8 GpSimd cores serves 16 partitions (nki-isa.md §1.2)
}  // namespace

// Per core: idx = its [16, F] index tile flattened column-major (first num_valid); every partition p of the
// core gets dst[p, k*K + e] = src[p, idx[k] + e] for e < K.
void exec_local_gather(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1), index = ctx.read(ins, 2);
  const uint32_t K = ins.params.elem_per_idx;
  const size_t fi = index.free_elems, per_core = kCorePartitions * fi;
  const size_t V = ins.params.num_valid > 0 ? size_t(ins.params.num_valid) : per_core;
  const size_t es = src.esize, srow = src.free_elems * es, drow = V * K * es;
  const uint32_t* idx = vec::gather_all_int(ctx, index, 0);
  const uint8_t* in = vec::gather_all_raw(ctx, src, 0);
  uint8_t* out = ctx.bytes(1, drow);
  for (uint32_t p = 0; p < src.partitions; ++p) {
    const uint32_t core0 = p / kCorePartitions * kCorePartitions;
    for (size_t k = 0; k < V; ++k) {
      const uint32_t at = idx[(core0 + k % kCorePartitions) * fi + k / kCorePartitions];
      if (size_t(at) + K > src.free_elems) {
        std::ostringstream os;
        os << "index " << at << " (+" << K << " elements) is outside src's " << src.free_elems << " elements per partition";
        vec::fail(ctx, ins, os.str());
      }
      std::memcpy(out + k * K * es, in + p * srow + at * es, K * es);
    }
    scatter_raw(dst, p, out);
  }
}

// One partition of n ids: dst[0, j] = start of j's run, dst[0, n + j] = exclusive end; id 0: n and -1.
void exec_sequence_bounds(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), ids = ctx.read(ins, 1);
  const size_t n = ids.free_elems;
  // Ids compare as fp32 values (float32 ids: +0 and -0 are both padding) or exactly as int32.
  const bool ints = ids.dtype == isa::DType::int32;
  const float* fid = ints ? nullptr : vec::gather_all_f32(ctx, ids, 0);
  const uint32_t* iid = ints ? vec::gather_all_int(ctx, ids, 0) : nullptr;
  auto equal = [&](size_t a, size_t b) { return ints ? iid[a] == iid[b] : fid[a] == fid[b]; };
  auto padding = [&](size_t a) { return ints ? iid[a] == 0 : fid[a] == 0.0f; };
  std::vector<int32_t> b(2 * n);
  for (size_t j = 0; j < n;) {
    size_t e = j + 1;
    while (e < n && equal(e, j)) ++e;
    for (size_t k = j; k < e; ++k) {
      b[k] = padding(j) ? int32_t(n) : int32_t(j);
      b[n + k] = padding(j) ? -1 : int32_t(e);
    }
    j = e;
  }
  uint8_t* row = ctx.bytes(0, 2 * n * dst.esize);
  for (size_t k = 0; k < 2 * n; ++k) isa::store_bits(row + k * dst.esize, dst.esize, vec::i32_to_bits(dst.dtype, b[k]));
  scatter_raw(dst, 0, row);
}

// Partitions 0, 16, .., 112: indices (+offset) of the nonzero elements, pad_val padding, then the count.
void exec_nonzero_with_count(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1);
  const size_t n = src.free_elems;
  uint32_t* bits = ctx.u32(0, n);
  uint32_t* out = ctx.u32(1, n + 1);
  for (uint32_t i = 0; i < src.partitions; ++i) {
    if ((src.start_partition + i) % kCorePartitions != 0) continue;
    gather_raw(src, i, reinterpret_cast<uint8_t*>(bits));
    size_t count = 0;
    for (size_t j = 0; j < n; ++j) {
      const bool nz = src.dtype == isa::DType::float32 ? (bits[j] & 0x7fffffffu) != 0 : bits[j] != 0;
      if (nz) out[count++] = uint32_t(int32_t(j) + ins.params.offset);
    }
    for (size_t j = count; j < n; ++j) out[j] = uint32_t(ins.params.pad_val);
    out[n] = uint32_t(count);
    scatter_int(dst, i, out);
  }
}

// Per 16-partition group: the K largest of the group's n snake-ordered values, ascending, and their indices.
void exec_topk(ExecContext& ctx, const isa::Instruction& ins) {
  View vals = ctx.write(ins, 0), idx = ctx.write(ins, 1), src = ctx.read(ins, 2);
  const size_t K = vals.free_elems, n = size_t(std::max(0, ins.params.num_valid));
  const size_t f = src.free_elems;
  const float* in = vec::gather_all_f32(ctx, src, 0);
  std::vector<uint32_t> order(n);
  float* ov = ctx.f32(1, K);
  uint32_t* oi = ctx.u32(0, K);
  for (uint32_t g = 0; g < src.partitions / kCorePartitions; ++g) {
    auto value = [&](uint32_t e) { return in[(g * kCorePartitions + e % kCorePartitions) * f + e / kCorePartitions]; };
    for (uint32_t e = 0; e < n; ++e) order[e] = e;
    auto larger = [&](uint32_t a, uint32_t b) {  // NaN ranks highest; ties: lower index first
      const float x = value(a), y = value(b);
      if (std::isnan(x) != std::isnan(y)) return std::isnan(x);
      if (x != y && !std::isnan(x)) return x > y;
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + long(K), order.end(), larger);
    for (size_t k = 0; k < K; ++k) {  // ascending: the K-th largest first
      ov[k] = value(order[K - 1 - k]);
      oi[k] = order[K - 1 - k];
    }
    for (uint32_t p = 0; p < kCorePartitions; ++p) {
      scatter_f32(vals, g * kCorePartitions + p, ov);
      scatter_int(idx, g * kCorePartitions + p, oi);
    }
  }
}

}  // namespace nkisim::sim
