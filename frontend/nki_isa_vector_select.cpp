// nki_isa_vector_select.cpp - nki.isa bindings of the vector_select family: tensor_copy_predicated, reciprocal,
// max8, nc_find_index8, nc_match_replace8, nc_stream_shuffle (verifiers: isa/verify_vector_select.cpp, executors:
// sim/exec_vector_select.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// shuffle_mask: 32 source partitions (0-31, or 255 to keep), one byte each in shuffle0..7.
void shuffle_mask(Interp&, OpBuilder& b, const Value* v) {
  if ((!v[2].is(VK::List) && !v[2].is(VK::Tuple)) || items_of(v[2]).size() != 32)
    raise("ValueError", "nc_stream_shuffle: shuffle_mask must be a list of 32 source partitions (0-31, or 255 to keep)");
  int32_t words[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const auto& m = items_of(v[2]);
  for (size_t k = 0; k < 32; ++k) {
    const int32_t e = int32_arg("nc_stream_shuffle", m[k], "shuffle_mask entry");
    if (!((e >= 0 && e < 32) || e == 255))
      raise("ValueError", "nc_stream_shuffle: shuffle_mask[" + std::to_string(k) + "] = " + std::to_string(e) +
                              " must be a partition 0-31 of the quadrant or 255");
    words[k / 4] = int32_t(uint32_t(words[k / 4]) | uint32_t(e) << (8 * (k % 4)));
  }
  auto& p = b.params();
  p.shuffle0 = words[0], p.shuffle1 = words[1], p.shuffle2 = words[2], p.shuffle3 = words[3];
  p.shuffle4 = words[4], p.shuffle5 = words[5], p.shuffle6 = words[6], p.shuffle7 = words[7];
}

const Binding kBindings[] = {
    {"tensor_copy_predicated", Opcode::tensor_copy_predicated,
     {tensor("dst", 0), tensor_or_number("src", 1, &P::imm0), tensor("predicate", 2),
      value("reverse_pred", &P::reverse0, false), kName}},
    {"reciprocal", Opcode::reciprocal, {tensor("dst", 0), tensor("data", 1), kName}},
    {"max8", Opcode::max8, {tensor("dst", 0), tensor("src", 1), kName}},
    {"nc_find_index8", Opcode::nc_find_index8, {tensor("dst", 0), tensor("data", 1), tensor("vals", 2), kName}},
    {"nc_match_replace8", Opcode::nc_match_replace8,
     {tensor("dst", 0), tensor("data", 1), tensor("vals", 2), value("imm", &P::imm0), tensor("dst_idx", 3, false),
      kName}},
    {"nc_stream_shuffle", Opcode::nc_stream_shuffle,
     {tensor("dst", 0), tensor("src", 1), custom("shuffle_mask", true), kName}, shuffle_mask},
};

}  // namespace

void install_nki_isa_vector_select(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
