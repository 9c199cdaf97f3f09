// dyn_offset.cpp - helpers for dynamic (run-time) offsets of on-chip operands (isa::DynOffset): the operand
// the offset is read from and the conservative footprint used for dependencies (docs/dynamic-offsets.md).
#include "isa/access_pattern.h"

namespace nkisim::isa {

AccessPattern dyn_source(const AccessPattern& ap) {
  AccessPattern s;
  if (ap.dyn.kind != DynOffset::Sbuf) return s;
  s.mem = Memory::SBUF;
  s.dtype = ap.dyn.dtype;
  s.start_partition = ap.dyn.src;
  s.num_partitions = 1;
  s.offset = ap.dyn.addr;
  return s;
}

AccessPattern dyn_footprint(const AccessPattern& ap) {
  if (!ap.dyn.present()) return ap;
  AccessPattern f;
  f.mem = ap.mem;
  f.dtype = DType::uint8;
  f.start_partition = ap.start_partition;
  f.num_partitions = ap.num_partitions;
  f.offset = ap.dyn.lo;
  const int64_t n = int64_t(ap.dyn.hi) - int64_t(ap.dyn.lo);
  f.num_dims = 1;
  f.dims[0] = ApDim{1, uint32_t(n > 0 ? n : 1)};
  return f;
}

}  // namespace nkisim::isa
