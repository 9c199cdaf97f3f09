// view.cpp - access-pattern normalisation, extents and bounds checks.
#include "sim/view.h"

#include <algorithm>
#include <sstream>

namespace nkisim::sim {
using isa::Memory;

View describe(const isa::AccessPattern& ap) {
  View v;
  v.mem = ap.mem;
  v.dtype = ap.dtype;
  v.esize = isa::dtype_size(ap.dtype);
  v.partitions = ap.num_partitions;
  v.start_partition = ap.mem == Memory::HBM ? 0 : ap.start_partition;
  if (ap.mem != Memory::HBM && ap.num_dims == 1 && ap.dims[0].count > 1 && ap.num_partitions) {
    // An on-chip [P, F] tile (most operands): what the general code below computes for it, without its loops.
    const int64_t st = int64_t(uint64_t(ap.dims[0].stride) * v.esize);  // a 32-bit stride: no wrap
    const __int128 span = __int128(ap.dims[0].count - 1) * st;
    const __int128 big = __int128(1) << 62;
    v.lo = int64_t(std::clamp((span < 0 ? span : 0) + ap.offset, -big, big));
    v.hi = int64_t(std::clamp((span < 0 ? 0 : span) + ap.offset + v.esize, -big, big));
    v.step[0] = st;
    v.count[0] = ap.dims[0].count;
    v.free_elems = ap.dims[0].count;
    return v;
  }

  // Extents in bytes, in 128-bit arithmetic so absurd strides cannot overflow.
  __int128 lo = 0, hi = 0;  // offsets of the first/last element relative to ap.offset
  bool any_empty = ap.num_partitions == 0;
  int nd_in = std::min<int>(ap.num_dims, isa::kMaxFreeDims);
  for (int d = 0; d < nd_in; ++d) {
    if (ap.dims[d].count == 0) any_empty = true;
    __int128 span = __int128(ap.dims[d].count ? ap.dims[d].count - 1 : 0) * ap.dims[d].stride * v.esize;
    (span < 0 ? lo : hi) += span;
  }
  if (ap.mem == Memory::HBM) {
    __int128 span = __int128(ap.num_partitions ? ap.num_partitions - 1 : 0) * ap.partition_stride * v.esize;
    (span < 0 ? lo : hi) += span;
  }
  auto clamp = [](__int128 x) {
    const __int128 big = __int128(1) << 62;
    return int64_t(std::clamp(x, -big, big));
  };
  v.lo = clamp(lo + ap.offset);
  v.hi = clamp(hi + ap.offset + v.esize);
  // Wrapping products: a huge stride (a hostile program) is out of bounds by lo/hi above and never walked.
  v.pstep = ap.mem == Memory::HBM ? int64_t(uint64_t(ap.partition_stride) * v.esize) : 0;  // on-chip: set by bind()

  // Normalise: drop count-1 dims, then merge an outer dim into its inner neighbour when contiguous.
  int nd = 0;
  std::array<int64_t, isa::kMaxFreeDims> st{};
  std::array<uint64_t, isa::kMaxFreeDims> ct{};
  for (int d = 0; d < nd_in; ++d) {
    if (ap.dims[d].count == 1) continue;
    st[nd] = int64_t(uint64_t(ap.dims[d].stride) * v.esize);
    ct[nd] = ap.dims[d].count;
    ++nd;
  }
  if (any_empty) {
    v.nd = 1;
    v.count[0] = 0;
    v.step[0] = v.esize;
    v.free_elems = 0;
    return v;
  }
  int out = 0;  // merged dims, built inner -> outer at the back then shifted
  std::array<int64_t, isa::kMaxFreeDims> ms{};
  std::array<uint64_t, isa::kMaxFreeDims> mc{};
  for (int d = nd - 1; d >= 0; --d) {
    if (out && st[d] == ms[out - 1] * int64_t(mc[out - 1]) && ct[d] * mc[out - 1] <= 0xffffffffull) {
      mc[out - 1] *= ct[d];
    } else {
      ms[out] = st[d];
      mc[out] = ct[d];
      ++out;
    }
  }
  if (out == 0) {
    v.nd = 1;
    v.step[0] = v.esize;
    v.count[0] = 1;
  } else {
    v.nd = out;
    for (int d = 0; d < out; ++d) {  // reverse back to outer -> inner
      v.step[d] = ms[out - 1 - d];
      v.count[d] = uint32_t(mc[out - 1 - d]);
    }
  }
  v.free_elems = 1;
  for (int d = 0; d < v.nd; ++d) v.free_elems *= v.count[d];
  return v;
}

static const char* mem_label(Memory m) {
  switch (m) {
    case Memory::HBM: return "HBM";
    case Memory::SBUF: return "SBUF";
    case Memory::PSUM: return "PSUM";
    default: return "no memory";
  }
}

std::string check_bounds(const View& v, uint32_t partitions, uint64_t partition_bytes) {
  if (in_bounds(v, partitions, partition_bytes)) return {};  // the common case builds no strings
  const bool hbm = v.mem == Memory::HBM;
  const bool bad_partitions = !hbm && uint64_t(v.start_partition) + v.partitions > partitions;
  std::ostringstream os;
  if (hbm) {
    os << "outside HBM bytes [0, " << partition_bytes << ") (bytes [" << v.lo << ", " << v.hi << "))";
  } else if (bad_partitions) {
    os << "outside " << mem_label(v.mem) << " partitions [0, " << partitions << ") (partitions ["
       << v.start_partition << ", " << uint64_t(v.start_partition) + v.partitions << "))";
  } else {
    os << "outside " << mem_label(v.mem) << " partition bytes [0, " << partition_bytes << ") (bytes [" << v.lo
       << ", " << v.hi << "))";
  }
  return os.str();
}

bool may_overlap(const View& a, const View& b) {
  if (a.mem != b.mem || a.empty() || b.empty()) return false;
  if (a.mem != Memory::HBM) {
    uint64_t a0 = a.start_partition, a1 = a0 + a.partitions;
    uint64_t b0 = b.start_partition, b1 = b0 + b.partitions;
    if (a1 <= b0 || b1 <= a0) return false;
  }
  return a.lo < b.hi && b.lo < a.hi;
}

}  // namespace nkisim::sim
