// access_pattern.h - the universal operand: where a tensor lives and how an instruction walks it.
#pragma once
#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "isa/dtype.h"

namespace nkisim::isa {

enum class Memory : uint8_t { None, HBM, SBUF, PSUM };
std::string_view memory_name(Memory m);  // "none", "hbm", "sbuf", "psum"

// A free dim's stride in elements: 32 bits wide in the instruction (on-chip patterns never needed more, and a
// DMA's rows are walked by the 64-bit partition stride), so an operand slot is 80 bytes, not 112. Reading it
// widens to int64_t, so arithmetic on a stride is what it was on the former int64_t field. It is set from an
// int32_t only (a wider integer does not compile): a producer checks fits_stride() first and reports a value
// out of range as a located error (lowering, the asm parser, the binary decoder).
struct ApStride {
  int32_t v = 0;
  constexpr ApStride() = default;
  constexpr ApStride(int32_t s) : v(s) {}  // NOLINT: implicit, like the int it stands for
  ApStride(int64_t) = delete;
  ApStride(uint32_t) = delete;
  ApStride(uint64_t) = delete;
  constexpr operator int64_t() const { return v; }  // NOLINT
};
inline constexpr bool fits_stride(int64_t s) { return s >= INT32_MIN && s <= INT32_MAX; }

struct ApDim {
  ApStride stride;  // in elements of the pattern's dtype (32-bit: fits_stride)
  uint32_t count = 1;
  bool operator==(const ApDim& o) const { return int64_t(stride) == int64_t(o.stride) && count == o.count; }
};

inline constexpr int kMaxFreeDims = 4;

// A run-time offset of an on-chip compute operand (`.ap(scalar_offset=...)`, `.select(dim, tensor)`;
// docs/dynamic-offsets.md). When the instruction executes, the pattern's `offset` moves by
// value * stride elements (of the pattern's dtype), where value is the integer the executing engine reads
// from SBUF (partition `src`, byte `addr`, dtype `dtype`) or from its sequencer register `src`. The moved
// pattern must stay inside bytes [lo, hi) of every partition (its base tensor): otherwise a run-time error.
struct DynOffset {
  enum Kind : uint8_t { None = 0, Sbuf = 1, Reg = 2 };
  Kind kind = None;
  DType dtype = DType::int32;  // Sbuf: the offset's dtype (an integer type)
  uint16_t src = 0;            // Sbuf: the offset's partition; Reg: the register number
  int32_t addr = 0;            // Sbuf: the offset's byte address in its partition
  int32_t stride = 0;          // elements per unit of the offset: prod(base.shape[indirect_dim+1:])
  int32_t lo = 0, hi = 0;      // bytes of each partition the moved pattern may touch (the base tensor)
  bool present() const { return kind != None; }
  bool operator==(const DynOffset&) const = default;
};

// Contract:
// * On-chip (SBUF/PSUM): the operand covers partitions [start_partition, start_partition+num_partitions);
//   in every partition it visits the elements at byte `offset + dtype_size * sum(idx_d * dims[d].stride)`
//   for idx_d in [0, dims[d].count), outermost dim first (dims[0]). `partition_stride` is unused (0).
// * HBM: `offset` is an absolute byte address in the HBM space; the "partition" dim is the outermost
//   walking dim with its own element stride `partition_stride` and count `num_partitions`
//   (start_partition is 0).
// * mem == None marks an absent optional operand.
// Element order (what "the i-th element" means for copies between differently shaped operands) is
// partition-major, then dims[0] .. dims[num_dims-1] (innermost last).
// Members are ordered widest first so the struct has no padding holes (80 bytes; 6 per Instruction).
struct AccessPattern {
  int64_t partition_stride = 0;
  int64_t offset = 0;
  std::array<ApDim, kMaxFreeDims> dims{};
  uint32_t start_partition = 0;
  uint32_t num_partitions = 0;
  DynOffset dyn{};  // on-chip compute operands only; kind None = a static pattern
  Memory mem = Memory::None;
  DType dtype = DType::float32;
  uint8_t num_dims = 0;

  bool present() const { return mem != Memory::None; }
  uint64_t free_elements() const {  // elements per partition
    uint64_t n = 1;
    for (int d = 0; d < num_dims; ++d) n *= dims[d].count;
    return n;
  }
  uint64_t total_elements() const { return free_elements() * num_partitions; }
  // Stride of the innermost free dim in elements (1 when there are no free dims).
  int64_t inner_stride() const { return num_dims ? int64_t(dims[num_dims - 1].stride) : 1; }
  bool operator==(const AccessPattern&) const = default;
};
static_assert(sizeof(AccessPattern) == 80, "an operand slot is 80 bytes: keep the members widest first");

// The 1-element SBUF operand a dynamic offset reads (dyn.kind == Sbuf), for dependency tracking.
AccessPattern dyn_source(const AccessPattern& ap);
// What a dynamic operand may touch: the pattern's partitions x bytes [dyn.lo, dyn.hi) as one uint8 dim
// (conservative dependencies); a static pattern is returned unchanged.
AccessPattern dyn_footprint(const AccessPattern& ap);

// Profiler-like text form, e.g. "sbuf:fp32@p0+128:0x400[[1,512]]" (see asm.cpp for the exact grammar).
std::string to_string(const AccessPattern& ap);

}  // namespace nkisim::isa
