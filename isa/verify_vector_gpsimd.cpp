// verify_vector_gpsimd.cpp - rules of the GpSimd instructions iota, affine_select, local_gather, sequence_bounds,
// nonzero_with_count, topk (executors: sim/exec_vector_gpsimd.cpp). Index values (local_gather) are data: the
// executor checks them.
#include <algorithm>
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint32_t kCorePartitions = 16;  // each of the 8 GpSimd cores serves 16 partitions (nki-isa.md §1.2)

// The affine pattern num0 x num1 x num2 x num3 of iota/affine_select walks dst's elements of a partition.
void affine_pattern(const Check& c) {
  const uint32_t num[4] = {c.pr.num0, c.pr.num1, c.pr.num2, c.pr.num3};
  const uint64_t n = uint64_t(num[0]) * num[1] * num[2] * num[3];
  if (n == c.free(0)) return;
  std::ostringstream os;
  os << "the pattern covers " << num[0] << "x" << num[1] << "x" << num[2] << "x" << num[3] << " = " << n
     << " elements per partition but dst has " << c.free(0);
  c.fail(os.str());
}

void core_multiple(const Check& c, int slot) {
  const AccessPattern& ap = c.op(slot);
  const uint32_t start = ap.mem == Memory::HBM ? 0 : ap.start_partition;
  if (start % kCorePartitions == 0 && ap.num_partitions % kCorePartitions == 0) return;
  std::ostringstream os;
  os << "operand '" << c.name(slot) << "' must cover whole 16-partition GpSimd cores, got partitions " << start << ".."
     << start + ap.num_partitions - 1;
  c.fail(os.str(), slot);
}

void float32_or_int32(const Check& c, int slot, bool named) {
  const DType t = c.dtype(slot);
  if (t == DType::float32 || t == DType::int32) return;
  c.fail((named ? "operand '" + std::string(c.name(slot)) + "'" : std::string(c.name(slot))) +
             " must be float32 or int32, got " + dt(t),
         slot);
}
}  // namespace

void verify_iota(const Check& c) { affine_pattern(c); }

void verify_affine_select(const Check& c) {
  c.same_shape(0, 1);
  const AluOp op = c.pr.op0;
  if (!(op == AluOp::equal || op == AluOp::not_equal || op == AluOp::greater || op == AluOp::greater_equal ||
        op == AluOp::less || op == AluOp::less_equal))
    c.fail("op0 (cmp_op) must be a comparison (equal, not_equal, greater, greater_equal, less or less_equal), got '" +
           alu(op) + "'");
  affine_pattern(c);
}

void verify_local_gather(const Check& c) {
  c.same_partitions(1, 2);
  c.same_partitions(0, 1);
  core_multiple(c, 1);
  if (c.dtype(2) != DType::uint16) c.fail(std::string(c.name(2)) + " must be uint16, got " + dt(c.dtype(2)), 2);
  if (c.dtype(1) != c.dtype(0))
    c.fail(std::string(c.name(0)) + " and " + c.name(1) + " must have the same dtype (no casting)");
  const uint32_t K = c.pr.elem_per_idx;
  if (!(K == 1 || K == 2 || K == 4 || K == 8 || K == 16 || K == 32))
    c.fail("elem_per_idx (num_elem_per_idx) must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(K));
  const uint64_t per_core = kCorePartitions * c.free(2);
  const uint64_t V = c.pr.num_valid > 0 ? uint64_t(c.pr.num_valid) : per_core;
  if (V > per_core || V > 4096)
    c.fail("num_valid = " + std::to_string(V) + " exceeds the " + std::to_string(std::min<uint64_t>(per_core, 4096)) +
           " indices a core can take");
  if (c.free(0) != V * K)
    c.fail(std::string(c.name(0)) + " must have num_valid x elem_per_idx = " + std::to_string(V * K) +
               " elements per partition, got " + std::to_string(c.free(0)),
           0);
}

void verify_sequence_bounds(const Check& c) {
  if (c.parts(1) != 1 || c.parts(0) != 1)
    c.fail(std::string(c.name(1)) + " and " + c.name(0) + " must have 1 partition, got " + std::to_string(c.parts(1)) +
           " and " + std::to_string(c.parts(0)));
  c.free_is(0, 2 * c.free(1));
  float32_or_int32(c, 0, true);
  float32_or_int32(c, 1, true);
}

void verify_nonzero_with_count(const Check& c) {
  c.same_partitions(0, 1);
  c.free_is(0, c.free(1) + 1);
  float32_or_int32(c, 1, false);
  if (c.dtype(0) != DType::int32) c.fail("dst must be int32, got " + dt(c.dtype(0)), 0);
}

void verify_topk(const Check& c) {
  core_multiple(c, 2);
  c.same_partitions(2, 0);
  c.same_partitions(2, 1);
  if (c.dtype(2) != DType::bfloat16 || c.dtype(0) != DType::bfloat16)
    c.fail(std::string(c.name(2)) + " and " + c.name(0) + " must be bfloat16, got " + dt(c.dtype(2)) + " and " +
           dt(c.dtype(0)));
  if (c.dtype(1) != DType::uint32) c.fail(std::string(c.name(1)) + " must be uint32, got " + dt(c.dtype(1)), 1);
  const uint64_t K = c.free(0), n = uint64_t(std::max(0, c.pr.num_valid));
  c.free_is(1, K);
  if (n < 8 || n >= 65536) c.fail("n must be in [8, 65536), got " + std::to_string(n));
  if (K < 1 || K >= 32768 || K > n)
    c.fail("K (" + std::string(c.name(0)) + "'s elements per partition) = " + std::to_string(K) +
           " must be in [1, min(n, 32767)] with n = " + std::to_string(n));
  if (c.free(2) * kCorePartitions < n)
    c.fail(std::string(c.name(2)) + " must have at least ceil(n / 16) = " + std::to_string((n + 15) / 16) +
               " elements per partition for n = " + std::to_string(n) + ", got " + std::to_string(c.free(2)),
           2);
}

}  // namespace nkisim::isa::rules
