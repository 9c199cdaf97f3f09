// nki_isa_vector_gpsimd.cpp - nki.isa bindings of the vector_gpsimd family: iota, affine_select, local_gather,
// sequence_bounds, nonzero_with_count, topk (verifiers: isa/verify_vector_gpsimd.cpp, executors:
// sim/exec_vector_gpsimd.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// ------------------------------------------------------------------------------ GpSimd affine patterns

// pattern = [[step, num], ...] (at most 4 pairs, outer -> inner) into step0..3/num0..3, right-aligned so
// num3 is the innermost (isa::verify: the nums multiply to dst's elements per partition).
void affine_pattern(OpBuilder& b, const char* fname, const Value& pat) {
  if (!pat.is(VK::List) && !pat.is(VK::Tuple))
    raise("TypeError", std::string(fname) + ": pattern must be a list of [step, num] pairs, got '" + type_name(pat) + "'");
  const auto& pairs = items_of(pat);
  if (pairs.empty() || pairs.size() > 4)
    raise("ValueError", std::string(fname) + ": pattern must have 1 to 4 [step, num] pairs, got " +
                            std::to_string(pairs.size()));
  int32_t step[4] = {0, 0, 0, 0}, num[4] = {1, 1, 1, 1};
  const size_t first = 4 - pairs.size();
  for (size_t k = 0; k < pairs.size(); ++k) {
    const Value& pr = pairs[k];
    if ((!pr.is(VK::List) && !pr.is(VK::Tuple)) || items_of(pr).size() != 2)
      raise("TypeError", std::string(fname) + ": pattern entry " + std::to_string(k) + " must be a [step, num] pair");
    step[first + k] = int32_arg(fname, items_of(pr)[0], "pattern step");
    num[first + k] = int32_arg(fname, items_of(pr)[1], "pattern num");
    if (num[first + k] < 1 || num[first + k] > 65535)
      raise("ValueError", std::string(fname) + ": pattern num must be in [1, 65535], got " + std::to_string(num[first + k]));
  }
  auto& p = b.params();
  p.step0 = step[0], p.step1 = step[1], p.step2 = step[2], p.step3 = step[3];
  p.num0 = uint16_t(num[0]), p.num1 = uint16_t(num[1]), p.num2 = uint16_t(num[2]), p.num3 = uint16_t(num[3]);
}

void iota_pattern(Interp&, OpBuilder& b, const Value* v) { affine_pattern(b, "iota", v[1]); }
void affine_select_pattern(Interp&, OpBuilder& b, const Value* v) { affine_pattern(b, "affine_select", v[1]); }

// ------------------------------------------------------------------------------------- GpSimd gathers

void gather_counts(Interp&, OpBuilder& b, const Value* v) {
  auto& p = b.params();
  const int32_t k = present(v[3]) ? int32_arg("local_gather", v[3], "num_elem_per_idx") : 1;
  if (k < 1 || k > 65535)
    raise("ValueError", "local_gather: num_elem_per_idx must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(k));
  p.elem_per_idx = uint16_t(k);
  const int32_t nv = present(v[4]) ? int32_arg("local_gather", v[4], "num_valid_indices") : 0;  // 0: all of them
  if (present(v[4]) && nv < 1)
    raise("ValueError", "local_gather: num_valid_indices must be at least 1, got " + std::to_string(nv));
  p.num_valid = nv;
}

const Binding kBindings[] = {
    {"iota", Opcode::iota,
     {tensor("dst", 0), custom("pattern", true), value("offset", &P::offset, false),
      value("channel_multiplier", &P::chan_mult, false), kName},
     iota_pattern},
    {"affine_select", Opcode::affine_select,
     {tensor("dst", 0), custom("pattern", true), value("channel_multiplier", &P::chan_mult), tensor("on_true_tile", 1),
      value("on_false_value", &P::imm0), value("cmp_op", &P::op0, false, int(AluOp::equal)),
      value("offset", &P::offset, false), kName},
     affine_select_pattern},
    {"local_gather", Opcode::local_gather,
     {tensor("dst", 0), tensor("src_buffer", 1), tensor("index", 2), custom("num_elem_per_idx"),
      custom("num_valid_indices"), kName},
     gather_counts},
    {"sequence_bounds", Opcode::sequence_bounds, {tensor("dst", 0), tensor("segment_ids", 1), kName}},
    {"nonzero_with_count", Opcode::nonzero_with_count,
     {tensor("dst", 0), tensor("src", 1), value("index_offset", &P::offset, false),
      value("padding_val", &P::pad_val, false), kName}},
    {"topk", Opcode::topk,
     {tensor("val_dst", 0), tensor("idx_dst", 1), tensor("src", 2), value("n", &P::num_valid), kName}},
};

}  // namespace

void install_nki_isa_vector_gpsimd(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
