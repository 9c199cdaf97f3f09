// view.h - an access pattern bound to simulated memory: shape, extents, and fast gather/scatter per partition.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "isa/access_pattern.h"
#include "sim/convert.h"

namespace nkisim::sim {

// An isa::AccessPattern normalised for iteration. Free dims of count 1 are dropped and dims that walk
// memory contiguously are merged, so most tiles become one dim (a "row" per partition). Byte steps.
// Element (i, j...) of the view is at row(i) + sum(j_d * step[d]); element order is partition-major, then
// dims outer -> inner, exactly the order of isa::AccessPattern.
struct View {
  isa::Memory mem = isa::Memory::None;
  isa::DType dtype = isa::DType::float32;
  unsigned esize = 4;
  uint32_t start_partition = 0;  // on-chip: first partition; HBM: 0
  uint32_t partitions = 0;
  int64_t pstep = 0;              // bytes between consecutive partitions of the view
  uint8_t* base = nullptr;        // element 0 of partition 0 (set by bind())
  int nd = 1;
  std::array<int64_t, isa::kMaxFreeDims> step{};  // bytes
  std::array<uint32_t, isa::kMaxFreeDims> count{};
  uint64_t free_elems = 0;
  // Bytes touched: on-chip [lo, hi) within each partition; HBM [lo, hi) absolute addresses.
  int64_t lo = 0, hi = 0;

  bool empty() const { return partitions == 0 || free_elems == 0; }
  uint64_t total_elems() const { return free_elems * partitions; }
  uint8_t* row(uint32_t i) const { return base + int64_t(i) * pstep; }
  // One contiguous run per partition (the common fast-path case).
  bool contiguous_rows() const { return nd == 1 && step[0] == int64_t(esize); }
};

// Normalises `ap` and computes its extents (base stays null; bind() later sets it).
View describe(const isa::AccessPattern& ap);

// Returns "" if `v` fits a memory of `partitions` x `partition_bytes` (HBM: 1 x hbm bytes), otherwise the
// reason, e.g. "outside SBUF partition bytes [0, 196608) (bytes [196600, 196616))".
std::string check_bounds(const View& v, uint32_t partitions, uint64_t partition_bytes);
// check_bounds(...) == "" without building a string (the per-operand test of every executed instruction).
inline bool in_bounds(const View& v, uint32_t partitions, uint64_t partition_bytes) {
  if (v.empty()) return true;
  const bool bad_partitions = v.mem != isa::Memory::HBM && uint64_t(v.start_partition) + v.partitions > partitions;
  return !bad_partitions && v.lo >= 0 && uint64_t(v.hi) <= partition_bytes;
}

// Calls f(uint8_t* first, size_t n, int64_t step) for every innermost run of partition i, in element order.
template <class F>
inline void for_each_run(const View& v, uint32_t i, F&& f) {
  uint8_t* b = v.row(i);
  const auto& s = v.step;
  const auto& c = v.count;
  switch (v.nd) {
    case 1:
      f(b, size_t(c[0]), s[0]);
      break;
    case 2:
      for (uint32_t a = 0; a < c[0]; ++a) f(b + a * s[0], size_t(c[1]), s[1]);
      break;
    case 3:
      for (uint32_t a = 0; a < c[0]; ++a)
        for (uint32_t d = 0; d < c[1]; ++d) f(b + a * s[0] + d * s[1], size_t(c[2]), s[2]);
      break;
    default:
      for (uint32_t a = 0; a < c[0]; ++a)
        for (uint32_t d = 0; d < c[1]; ++d)
          for (uint32_t e = 0; e < c[2]; ++e) f(b + a * s[0] + d * s[1] + e * s[2], size_t(c[3]), s[3]);
      break;
  }
}

// Per-partition gather (memory -> contiguous buffer of free_elems elements) and scatter (buffer -> memory).
inline void gather_f32(const View& v, uint32_t i, float* out) {
  if (v.contiguous_rows() && v.dtype == isa::DType::float32) {
    load_f32(v.dtype, v.row(i), 4, v.free_elems, out);
    return;
  }
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { load_f32(v.dtype, p, st, n, out); out += n; });
}
inline void scatter_f32(const View& v, uint32_t i, const float* in) {
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { store_f32(v.dtype, p, st, n, in); in += n; });
}
inline void gather_raw(const View& v, uint32_t i, uint8_t* out) {
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { load_raw(v.esize, p, st, n, out); out += n * v.esize; });
}
inline void scatter_raw(const View& v, uint32_t i, const uint8_t* in) {
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { store_raw(v.esize, p, st, n, in); in += n * v.esize; });
}
inline void gather_int(const View& v, uint32_t i, uint32_t* out) {
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { load_int(v.dtype, p, st, n, out); out += n; });
}
inline void scatter_int(const View& v, uint32_t i, const uint32_t* in) {
  for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) { store_int(v.dtype, p, st, n, in); in += n; });
}

// True when every partition of `v` is one contiguous float32 run at a 4-byte aligned host address, so that
// it can be read and written through float*. Simulated memory is byte-addressed: a view may start at any
// byte (nothing in the NKI docs requires aligned fp32 operands), and misaligned fp32 views go through the
// memcpy paths of sim/convert.h instead (a float* access to them would be undefined behaviour).
inline bool direct_f32_rows(const View& v) {
  return v.dtype == isa::DType::float32 && v.contiguous_rows() && v.pstep % int64_t(alignof(float)) == 0 &&
         reinterpret_cast<uintptr_t>(v.base) % alignof(float) == 0;
}
// Direct fp32 access to partition i when direct_f32_rows(v), else nullptr.
inline float* direct_f32(const View& v, uint32_t i) {
  return direct_f32_rows(v) ? reinterpret_cast<float*>(v.row(i)) : nullptr;
}

// True when the byte ranges the two views touch can intersect (same memory, overlapping partitions and
// bytes). Conservative: strided views that interleave without sharing bytes count as overlapping.
bool may_overlap(const View& a, const View& b);

}  // namespace nkisim::sim
