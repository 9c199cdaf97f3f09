// verify_vector_reduce.cpp - rules of tensor_reduce, tensor_partition_reduce, bn_stats, bn_aggr
// (executors: sim/exec_vector_reduce.cpp).
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint64_t kBnStatsFmax = 512;  // nl.tile_size.bn_stats_fmax (nki-isa.md §3.3)

void bitvec_reduction(const Check& c, AluOp op) {
  if (!is_bitvec(op)) return;
  c.integer(0, "for a bitvec reduction");
  c.integer(1, "for a bitvec reduction");
}
}  // namespace

void verify_tensor_reduce(const Check& c) {
  c.same_partitions(0, 1);
  const AluOp op = c.pr.op0;
  if (!alu_reduce_ok(op)) c.fail("'" + alu(op) + "' cannot be used as a reduction");
  if (c.empty(0)) return;
  const uint64_t G = c.free(0), N = c.free(1);
  if (N % G != 0) {
    std::ostringstream os;
    os << "data has " << N << " elements per partition, not a multiple of dst's " << G;
    c.fail(os.str(), 1);
  }
  if (is_bitvec(op) && c.pr.negate) c.fail("negate is only allowed with arithmetic reductions, not '" + alu(op) + "'");
  bitvec_reduction(c, op);
}

void verify_tensor_partition_reduce(const Check& c) {
  const AluOp op = c.pr.op0;
  if (!(op == AluOp::add || op == AluOp::maximum || op == AluOp::minimum || op == AluOp::bitwise_or ||
        op == AluOp::bitwise_and))
    c.fail("op0 must be add, maximum, minimum, bitwise_or or bitwise_and, got '" + alu(op) + "'");
  if (c.parts(0) != 1 || c.free(0) != c.free(1)) {
    std::ostringstream os;
    os << c.name(0) << " must be a [1, " << c.free(1) << "] tile for " << c.name(1) << " of " << c.parts(1)
       << " partitions x " << c.free(1) << " elements, got " << c.parts(0) << " partitions x " << c.free(0) << " elements";
    c.fail(os.str(), 0);
  }
  if (c.empty(1)) return;
  bitvec_reduction(c, op);
}

void verify_bn_stats(const Check& c) {
  c.same_partitions(0, 1);
  c.free_is(0, 6);
  if (c.free(1) > kBnStatsFmax)
    c.fail("data has " + std::to_string(c.free(1)) + " elements per partition; at most 512 (bn_stats_fmax)", 1);
}

void verify_bn_aggr(const Check& c) {
  c.same_partitions(0, 1);
  c.free_is(0, 2);
  if (c.free(1) % 3 != 0)
    c.fail("data must hold (count, mean, count*variance) triples, but has " + std::to_string(c.free(1)) +
               " elements per partition",
           1);
}

}  // namespace nkisim::isa::rules
