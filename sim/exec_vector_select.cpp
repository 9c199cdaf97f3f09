// exec_vector_select.cpp - Vector Engine selection, search and movement: reciprocal, tensor_copy_predicated,
// max8, nc_find_index8, nc_match_replace8, nc_stream_shuffle. Static rules:
// isa/verify_vector_select.cpp.
#include <cmath>
#include <cstring>

#include "sim/exec_vector_util.h"

namespace nkisim::sim {

// dst = 1 / data (fp32 IEEE division).
void exec_reciprocal(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  elementwise_f32<1>(ctx, dst, {&data}, [](uint32_t, const auto& in, float* out, size_t n) {
    for (size_t j = 0; j < n; ++j) out[j] = 1.0f / in[0][j];
  });
}

// Where (predicate != 0) != reverse0: dst = src (raw bits; src absent: imm0 in dst's dtype); else unchanged.
void exec_tensor_copy_predicated(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1), pred = ctx.read(ins, 2);
  if (dst.empty()) return;
  const size_t n = dst.free_elems, es = dst.esize;
  const uint32_t P = dst.partitions;
  const uint32_t* p = vec::gather_all_int(ctx, pred, 0);
  const uint8_t* s = src.mem != isa::Memory::None ? vec::gather_all_raw(ctx, src, 1) : nullptr;
  uint8_t* d = vec::gather_all_raw(ctx, dst, 2);
  const uint32_t imm = isa::from_f32(dst.dtype, ins.params.imm0);
  for (size_t k = 0; k < n * P; ++k) {
    if ((p[k] != 0) == ins.params.reverse0) continue;
    if (s)
      std::memcpy(d + k * es, s + k * es, es);
    else
      isa::store_bits(d + k * es, unsigned(es), imm);
  }
  vec::scatter_all_raw(dst, d);
}

namespace {
// a ranks above b: NaN above every number, then the larger value.
inline bool ranks_above(float a, float b) {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a > b;
}
}  // namespace

// dst[p, 0:8] = the 8 largest of src[p], descending; equal values keep source order.
void exec_max8(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1);
  const size_t n = src.free_elems;
  const uint32_t P = src.partitions;
  const float* in = vec::gather_all_f32(ctx, src, 0);
  float* out = ctx.f32(1, 8 * size_t(P));
  for (uint32_t i = 0; i < P; ++i) {
    float* top = out + 8 * i;
    size_t have = 0;
    for (size_t j = 0; j < n; ++j) {
      const float x = in[i * n + j];
      if (have == 8 && !ranks_above(x, top[7])) continue;
      size_t k = have < 8 ? have++ : 7;
      while (k > 0 && ranks_above(x, top[k - 1])) {
        top[k] = top[k - 1];
        --k;
      }
      top[k] = x;
    }
  }
  vec::scatter_all_f32(dst, out);
}

namespace {
// For slot k in `order`: index of the first element equal to vals[k] that no earlier slot took (or ~0u).
// Taken elements are marked in `taken` (n entries, cleared here).
void match8(const float* x, size_t n, const float* vals, const int (&order)[8], uint8_t* taken, uint32_t idx[8]) {
  std::memset(taken, 0, n);
  for (int k : order) {
    idx[k] = ~0u;
    for (size_t j = 0; j < n; ++j)
      if (!taken[j] && x[j] == vals[k]) {
        taken[j] = 1;
        idx[k] = uint32_t(j);
        break;
      }
  }
}
}  // namespace

// dst[p, k] = index of the first occurrence of vals[p, k] in data[p]; duplicate values take successive
// occurrences in slot order 0..7; not found: all ones.
void exec_nc_find_index8(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1), vals = ctx.read(ins, 2);
  const size_t n = data.free_elems;
  const uint32_t P = data.partitions;
  const float* x = vec::gather_all_f32(ctx, data, 0);
  const float* v = vec::gather_all_f32(ctx, vals, 1);
  uint32_t* out = ctx.u32(0, 8 * size_t(P));
  uint8_t* taken = ctx.bytes(0, n);
  static const int kAscending[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (uint32_t i = 0; i < P; ++i) match8(x + i * n, n, v + 8 * i, kAscending, taken, out + 8 * i);
  vec::scatter_all_int(dst, out);
}

// dst = data with the first occurrence of each vals[p, k] (slots 7..0, so duplicate values pair with
// successive occurrences in descending slot order) replaced by imm0; dst_idx[p, k] = its index or all ones.
void exec_nc_match_replace8(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1), vals = ctx.read(ins, 2);
  const size_t n = data.free_elems;
  const uint32_t P = data.partitions;
  float* x = vec::gather_all_f32(ctx, data, 0);
  const float* v = vec::gather_all_f32(ctx, vals, 1);
  uint32_t* idx = ctx.u32(0, 8 * size_t(P));
  uint8_t* taken = ctx.bytes(0, n);
  static const int kDescending[8] = {7, 6, 5, 4, 3, 2, 1, 0};
  for (uint32_t i = 0; i < P; ++i) {
    match8(x + i * n, n, v + 8 * i, kDescending, taken, idx + 8 * i);
    for (int k = 0; k < 8; ++k)
      if (idx[8 * i + k] != ~0u) x[i * n + idx[8 * i + k]] = ins.params.imm0;
  }
  if (ins.operands[3].present()) {  // read before dst is written: dst_idx may not alias data, but check anyway
    View di = ctx.write(ins, 3);
    vec::scatter_all_f32(dst, x);
    vec::scatter_all_int(di, idx);
    return;
  }
  vec::scatter_all_f32(dst, x);
}

// Per 32-partition quadrant: dst partition i <- src partition mask[i % 32] of the same quadrant (255: keep).
void exec_nc_stream_shuffle(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const int32_t words[8] = {pr.shuffle0, pr.shuffle1, pr.shuffle2, pr.shuffle3,
                            pr.shuffle4, pr.shuffle5, pr.shuffle6, pr.shuffle7};
  uint8_t mask[32];
  for (int k = 0; k < 32; ++k) mask[k] = uint8_t(uint32_t(words[k / 4]) >> (8 * (k % 4)));
  const size_t row = src.free_elems * src.esize;
  const uint8_t* in = vec::gather_all_raw(ctx, src, 0);
  for (uint32_t i = 0; i < dst.partitions; ++i) {
    const uint8_t m = mask[i % 32];
    if (m == 255) continue;
    const uint32_t from = i / 32 * 32 + m;  // < src.partitions (isa/verify_vector_select.cpp)
    scatter_raw(dst, i, in + from * row);
  }
}

}  // namespace nkisim::sim
