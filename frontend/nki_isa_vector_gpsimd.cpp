// nki_isa_vector_gpsimd.cpp - nki.isa bindings of the vector_gpsimd family: iota, affine_select, local_gather,
// sequence_bounds, nonzero_with_count, topk (verifiers: isa/verify_vector_gpsimd.cpp, executors:
// sim/exec_vector_gpsimd.cpp).
#include "frontend/nki_isa_vector_util.h"

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

Value isa_iota(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"pattern", true}, {"offset"}, {"channel_multiplier"}, {"name"}};
  Value v[5];
  bind("iota", ps, a, v);
  OpBuilder b(in, "iota", Opcode::iota);
  b.operand(0, v[0], "dst");
  affine_pattern(b, "iota", v[1]);
  if (present(v[2])) b.params().offset = int32_arg("iota", v[2], "offset");
  if (present(v[3])) b.params().chan_mult = int32_arg("iota", v[3], "channel_multiplier");
  b.name(v[4]);
  return b.emit();
}

Value isa_affine_select(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},          {"pattern", true}, {"channel_multiplier", true},
                                 {"on_true_tile", true}, {"on_false_value", true}, {"cmp_op"}, {"offset"}, {"name"}};
  Value v[8];
  bind("affine_select", ps, a, v);
  OpBuilder b(in, "affine_select", Opcode::affine_select);
  b.operand(0, v[0], "dst");
  b.operand(1, v[3], "on_true_tile");
  affine_pattern(b, "affine_select", v[1]);
  auto& p = b.params();
  p.chan_mult = int32_arg("affine_select", v[2], "channel_multiplier");
  p.imm0 = b.number(v[4], "on_false_value");
  p.op0 = present(v[5]) ? b.alu(v[5], "cmp_op") : AluOp::equal;
  if (present(v[6])) p.offset = int32_arg("affine_select", v[6], "offset");
  b.name(v[7]);
  return b.emit();
}

// ------------------------------------------------------------------------------------- GpSimd gathers

Value isa_local_gather(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},         {"src_buffer", true}, {"index", true},
                                 {"num_elem_per_idx"}, {"num_valid_indices"}, {"name"}};
  Value v[6];
  bind("local_gather", ps, a, v);
  OpBuilder b(in, "local_gather", Opcode::local_gather);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src_buffer");
  b.operand(2, v[2], "index");
  auto& p = b.params();
  const int32_t k = present(v[3]) ? int32_arg("local_gather", v[3], "num_elem_per_idx") : 1;
  if (k < 1 || k > 65535)
    raise("ValueError", "local_gather: num_elem_per_idx must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(k));
  p.elem_per_idx = uint16_t(k);
  const int32_t nv = present(v[4]) ? int32_arg("local_gather", v[4], "num_valid_indices") : 0;  // 0: all of them
  if (present(v[4]) && nv < 1)
    raise("ValueError", "local_gather: num_valid_indices must be at least 1, got " + std::to_string(nv));
  p.num_valid = nv;
  b.name(v[5]);
  return b.emit();
}

Value isa_sequence_bounds(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"segment_ids", true}, {"name"}};
  Value v[3];
  bind("sequence_bounds", ps, a, v);
  OpBuilder b(in, "sequence_bounds", Opcode::sequence_bounds);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "segment_ids");
  b.name(v[2]);
  return b.emit();
}

Value isa_nonzero_with_count(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"index_offset"}, {"padding_val"}, {"name"}};
  Value v[5];
  bind("nonzero_with_count", ps, a, v);
  OpBuilder b(in, "nonzero_with_count", Opcode::nonzero_with_count);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
  if (present(v[2])) b.params().offset = int32_arg("nonzero_with_count", v[2], "index_offset");
  if (present(v[3])) b.params().pad_val = int32_arg("nonzero_with_count", v[3], "padding_val");
  b.name(v[4]);
  return b.emit();
}

Value isa_topk(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"val_dst", true}, {"idx_dst", true}, {"src", true}, {"n", true}, {"name"}};
  Value v[5];
  bind("topk", ps, a, v);
  OpBuilder b(in, "topk", Opcode::topk);
  b.operand(0, v[0], "val_dst");
  b.operand(1, v[1], "idx_dst");
  b.operand(2, v[2], "src");
  b.params().num_valid = int32_arg("topk", v[3], "n");
  b.name(v[4]);
  return b.emit();
}

}  // namespace

void install_nki_isa_vector_gpsimd(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("iota", isa_iota);
  def("affine_select", isa_affine_select);
  def("local_gather", isa_local_gather);
  def("sequence_bounds", isa_sequence_bounds);
  def("nonzero_with_count", isa_nonzero_with_count);
  def("topk", isa_topk);
}

}  // namespace nkisim::frontend
