// access.cpp - lowering ir::View to isa::AccessPattern, with the operand rules of the instruction table.
#include <climits>
#include <string>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

// A pattern dimension's count: 16 bits on chip; 32 bits on a DMA's HBM side.
constexpr int64_t kChipMaxCount = 65535, kHbmMaxCount = int64_t(UINT32_MAX);

std::string opname(const Op& op, int slot) {
  const isa::InstrInfo& in = isa::info(op.opcode);
  return std::string(in.mnemonic) + ": operand '" + in.operands[slot].name + "'";
}

// Drops size-1 dims and merges an outer dim into the next inner one when they are contiguous and the merged count
// stays within `max_count` (the pattern's count field; inline: no allocation, twice per operand of every
// instruction).
ViewDims canonical_free_dims(const ViewDims& dims, size_t first, int64_t max_count) {
  ViewDims merged;
  for (size_t i = first; i < dims.size(); ++i) {
    const ViewDim& d = dims[i];
    if (d.count == 1) continue;
    if (!merged.empty() && merged.back().stride == d.stride * d.count && merged.back().count * d.count <= max_count) {
      merged.back() = ViewDim{d.stride, merged.back().count * d.count};
      continue;
    }
    merged.push_back(d);
  }
  return merged;
}

}  // namespace

isa::AccessPattern to_access_pattern(const Kernel& k, const Placement& p, const View& v, const Op& op, int slot,
                                     const isa::TargetDesc& t) {
  const Tensor& tt = k.tensors.at(size_t(v.tensor));
  const int64_t es = isa::dtype_size(v.dtype);
  isa::AccessPattern ap;
  ap.mem = p.mem;
  ap.dtype = v.dtype;
  for (auto& d : v.dims)
    if (d.count <= 0) throw error_at(op, opname(op, slot) + " is empty (a dimension has size " + std::to_string(d.count) + ")");

  ViewDims free;
  if (p.mem == isa::Memory::HBM) {
    ap.offset = p.address + v.offset * es;
    if (v.dims.size() <= 1) {
      ap.num_partitions = 1;
      ap.partition_stride = 0;
      free = canonical_free_dims(v.dims, 0, kHbmMaxCount);
    } else {
      if (v.dims[0].count > int64_t(UINT32_MAX))
        throw error_at(op, opname(op, slot) + ": a row dimension of " + std::to_string(v.dims[0].count) +
                               " rows is outside the hardware's pattern limits");
      ap.num_partitions = uint32_t(v.dims[0].count);
      ap.partition_stride = v.dims[0].count > 1 ? v.dims[0].stride : 0;
      free = canonical_free_dims(v.dims, 1, kHbmMaxCount);
    }
  } else {
    int64_t part_bytes = 1;
    for (size_t i = 1; i < tt.shape.size(); ++i) part_bytes *= tt.shape[i];
    part_bytes *= isa::dtype_size(tt.dtype);
    if (part_bytes % es != 0) throw error_at(op, opname(op, slot) + ": a partition's size is not a whole number of " + std::string(isa::dtype_name(v.dtype)) + " elements");
    const int64_t f = part_bytes / es;
    const int64_t parts = v.dims.empty() ? 1 : v.dims[0].count;
    if (parts > 1 && v.dims[0].stride != f)
      throw error_at(op, opname(op, slot) + ": the partition dimension cannot be strided or reshaped (stride " +
                             std::to_string(v.dims[0].stride) + ", expected " + std::to_string(f) + ")");
    ap.start_partition = uint32_t(p.partition + v.offset / f);
    ap.num_partitions = uint32_t(parts);
    ap.offset = p.address + (v.offset % f) * es;
    free = canonical_free_dims(v.dims, 1, kChipMaxCount);
    if (int64_t(ap.start_partition) + parts > int64_t(t.partitions) || parts > int64_t(t.partitions))
      throw error_at(op, opname(op, slot) + ": Size of partition dimension " + std::to_string(parts) +
                             " exceeds architecture limitation of " + std::to_string(int64_t(t.partitions)));
    // Start-partition rule for compute engines (nki-isa.md §1.3): 64<P<=128 -> 0; 32<P<=64 -> 0|64;
    // P<=32 -> 0|32|64|96. DMA has no such rule.
    if (!isa::has_trait(op.opcode, isa::Trait::DMA)) {
      const int64_t quantum = parts > 64 ? 128 : parts > 32 ? 64 : 32;
      if (ap.start_partition % quantum != 0)
        throw error_at(op, opname(op, slot) + " starts at partition " + std::to_string(ap.start_partition) + " with " +
                               std::to_string(parts) + " partitions; an access of " +
                               (parts > 64 ? "more than 64 partitions must start at partition 0"
                                : parts > 32 ? "33 to 64 partitions must start at partition 0 or 64"
                                             : "32 or fewer partitions must start at partition 0, 32, 64 or 96"));
    }
  }
  if (free.size() > size_t(isa::kMaxFreeDims))
    throw error_at(op, opname(op, slot) + " needs " + std::to_string(free.size()) +
                           " free dimensions after merging; the hardware walks at most 4");
  if (free.empty()) free.push_back(ViewDim{1, 1});
  ap.num_dims = uint8_t(free.size());
  for (size_t i = 0; i < free.size(); ++i) {
    // On chip: 16-bit counts, 32-bit strides; a DMA's HBM side: 32-bit counts and strides (its rows step by the
    // 64-bit partition stride).
    if (!isa::fits_stride(free[i].stride) || free[i].count > (p.mem != isa::Memory::HBM ? kChipMaxCount : kHbmMaxCount))
      throw error_at(op, opname(op, slot) + ": a free dimension of " + std::to_string(free[i].count) + " elements with stride " +
                             std::to_string(free[i].stride) + " is outside the hardware's pattern limits");
    ap.dims[i] = isa::ApDim{int32_t(free[i].stride), uint32_t(free[i].count)};
  }
  return ap;
}

}  // namespace nkisim::ir
