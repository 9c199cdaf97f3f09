// nki_isa_vector_select.cpp - nki.isa bindings of the vector_select family: tensor_copy_predicated, reciprocal,
// max8, nc_find_index8, nc_match_replace8, nc_stream_shuffle (verifiers: isa/verify_vector_select.cpp, executors:
// sim/exec_vector_select.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

Value isa_tensor_copy_predicated(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"predicate", true}, {"reverse_pred"}, {"name"}};
  Value v[5];
  bind("tensor_copy_predicated", ps, a, v);
  OpBuilder b(in, "tensor_copy_predicated", Opcode::tensor_copy_predicated);
  b.operand(0, v[0], "dst");
  b.operand(2, v[2], "predicate");
  if (v[1].is(VK::Tensor)) {
    b.operand(1, v[1], "src");
  } else {
    b.params().imm0 = b.number(v[1], "src");
  }
  b.params().reverse0 = flag(in, v[3]);
  b.name(v[4]);
  return b.emit();
}

Value isa_reciprocal(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"name"}};
  Value v[3];
  bind("reciprocal", ps, a, v);
  OpBuilder b(in, "reciprocal", Opcode::reciprocal);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.name(v[2]);
  return b.emit();
}

Value isa_max8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"name"}};
  Value v[3];
  bind("max8", ps, a, v);
  OpBuilder b(in, "max8", Opcode::max8);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
  b.name(v[2]);
  return b.emit();
}

Value isa_nc_find_index8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"vals", true}, {"name"}};
  Value v[4];
  bind("nc_find_index8", ps, a, v);
  OpBuilder b(in, "nc_find_index8", Opcode::nc_find_index8);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.operand(2, v[2], "vals");
  b.name(v[3]);
  return b.emit();
}

Value isa_nc_match_replace8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"vals", true}, {"imm", true}, {"dst_idx"}, {"name"}};
  Value v[6];
  bind("nc_match_replace8", ps, a, v);
  OpBuilder b(in, "nc_match_replace8", Opcode::nc_match_replace8);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.operand(2, v[2], "vals");
  b.params().imm0 = b.number(v[3], "imm");
  if (present(v[4])) b.operand(3, v[4], "dst_idx");
  b.name(v[5]);
  return b.emit();
}

Value isa_nc_stream_shuffle(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"shuffle_mask", true}, {"name"}};
  Value v[4];
  bind("nc_stream_shuffle", ps, a, v);
  OpBuilder b(in, "nc_stream_shuffle", Opcode::nc_stream_shuffle);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
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
  b.name(v[3]);
  return b.emit();
}

}  // namespace

void install_nki_isa_vector_select(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_copy_predicated", isa_tensor_copy_predicated);
  def("reciprocal", isa_reciprocal);
  def("max8", isa_max8);
  def("nc_find_index8", isa_nc_find_index8);
  def("nc_match_replace8", isa_nc_match_replace8);
  def("nc_stream_shuffle", isa_nc_stream_shuffle);
}

}  // namespace nkisim::frontend
