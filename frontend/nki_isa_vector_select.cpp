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
  auto* dst = b.operand(0, v[0], "dst");
  auto* pred = b.operand(2, v[2], "predicate");
  b.same_shape(dst, "dst", pred, "predicate", true);
  const isa::DType pd = pred->view.dtype;
  if (!(pd == isa::DType::uint8 || pd == isa::DType::uint16 || pd == isa::DType::uint32 || pd == isa::DType::bool_))
    raise("ValueError", "tensor_copy_predicated: predicate must be uint8, uint16, uint32 or bool, got " +
                            std::string(dtype_str(pd)));
  if (v[1].is(VK::Tensor)) {
    auto* src = b.operand(1, v[1], "src");
    b.same_shape(dst, "dst", src, "src", true);
    if (src->view.dtype != dst->view.dtype)
      raise("ValueError", "tensor_copy_predicated: src and dst must have the same dtype, got " +
                              std::string(dtype_str(src->view.dtype)) + " and " + std::string(dtype_str(dst->view.dtype)));
    not_both_psum("tensor_copy_predicated", src, "src", pred, "predicate");
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
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  b.same_shape(dst, "dst", data, "data", true);
  b.name(v[2]);
  return b.emit();
}

void search_size(const char* fname, const TensorObj* t, const char* arg) {
  const int64_t n = free_size(t);
  if (n < 8 || n > 16384)
    raise("ValueError", std::string(fname) + ": " + arg + " must have 8 to 16384 elements per partition, got shape " +
                            shape_str(t->view.shape()));
}

Value isa_max8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"name"}};
  Value v[3];
  bind("max8", ps, a, v);
  OpBuilder b(in, "max8", Opcode::max8);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  require_same_partitions("max8", dst, "dst", src, "src");
  require_free("max8", dst, "dst", 8, "8 elements per partition");
  search_size("max8", src, "src");
  b.name(v[2]);
  return b.emit();
}

Value isa_nc_find_index8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"vals", true}, {"name"}};
  Value v[4];
  bind("nc_find_index8", ps, a, v);
  OpBuilder b(in, "nc_find_index8", Opcode::nc_find_index8);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  auto* vals = b.operand(2, v[2], "vals");
  require_same_partitions("nc_find_index8", dst, "dst", data, "data");
  require_same_partitions("nc_find_index8", vals, "vals", data, "data");
  require_free("nc_find_index8", dst, "dst", 8, "8 elements per partition");
  require_free("nc_find_index8", vals, "vals", 8, "8 elements per partition");
  search_size("nc_find_index8", data, "data");
  if (dst->view.dtype != isa::DType::uint32 && dst->view.dtype != isa::DType::uint16)
    raise("ValueError", "nc_find_index8: dst must be uint32 or uint16, got " + std::string(dtype_str(dst->view.dtype)));
  b.name(v[3]);
  return b.emit();
}

Value isa_nc_match_replace8(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"vals", true}, {"imm", true}, {"dst_idx"}, {"name"}};
  Value v[6];
  bind("nc_match_replace8", ps, a, v);
  OpBuilder b(in, "nc_match_replace8", Opcode::nc_match_replace8);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  auto* vals = b.operand(2, v[2], "vals");
  b.same_shape(dst, "dst", data, "data", true);
  require_same_partitions("nc_match_replace8", vals, "vals", data, "data");
  require_free("nc_match_replace8", vals, "vals", 8, "8 elements per partition");
  if (free_size(data) > 16384)
    raise("ValueError", "nc_match_replace8: data must have at most 16384 elements per partition, got shape " +
                            shape_str(data->view.shape()));
  b.params().imm0 = b.number(v[3], "imm");
  if (present(v[4])) {
    auto* idx = b.operand(3, v[4], "dst_idx");
    require_same_partitions("nc_match_replace8", idx, "dst_idx", data, "data");
    require_free("nc_match_replace8", idx, "dst_idx", 8, "8 elements per partition");
    if (idx->view.dtype != isa::DType::uint32 && idx->view.dtype != isa::DType::uint16)
      raise("ValueError", "nc_match_replace8: dst_idx must be uint32 or uint16, got " +
                              std::string(dtype_str(idx->view.dtype)));
  }
  b.name(v[5]);
  return b.emit();
}

Value isa_nc_stream_shuffle(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"shuffle_mask", true}, {"name"}};
  Value v[4];
  bind("nc_stream_shuffle", ps, a, v);
  OpBuilder b(in, "nc_stream_shuffle", Opcode::nc_stream_shuffle);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  if (dst->view.dtype != src->view.dtype || free_size(dst) != free_size(src))
    raise("ValueError", "nc_stream_shuffle: dst " + shape_str(dst->view.shape()) + " " + std::string(dtype_str(dst->view.dtype)) +
                            " and src " + shape_str(src->view.shape()) + " " + std::string(dtype_str(src->view.dtype)) +
                            " must have the same dtype and elements per partition");
  if ((!v[2].is(VK::List) && !v[2].is(VK::Tuple)) || items_of(v[2]).size() != 32)
    raise("ValueError", "nc_stream_shuffle: shuffle_mask must be a list of 32 source partitions (0-31, or 255 to keep)");
  int32_t words[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const auto& m = items_of(v[2]);
  for (size_t k = 0; k < 32; ++k) {
    const int32_t e = int32_arg("nc_stream_shuffle", m[k], "shuffle_mask entry");
    if (!((e >= 0 && e < 32) || e == 255))
      raise("ValueError", "nc_stream_shuffle: shuffle_mask[" + std::to_string(k) + "] = " + std::to_string(e) +
                              " must be a partition 0-31 of the quadrant or 255");
    for (int64_t i = int64_t(k); i < partitions(dst); i += 32)  // every dst partition using this entry
      if (e != 255 && i / 32 * 32 + e >= partitions(src))
        raise("ValueError", "nc_stream_shuffle: shuffle_mask[" + std::to_string(k) + "] = " + std::to_string(e) +
                                " selects partition " + std::to_string(i / 32 * 32 + e) + " but src has " +
                                std::to_string(partitions(src)) + " partitions");
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
