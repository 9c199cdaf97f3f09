// nki_isa_vector_select.cpp - nki.isa bindings: selection and search (range_select, select_reduce,
// tensor_copy_predicated, reciprocal, max8, nc_find_index8, nc_match_replace8, nc_stream_shuffle) and the GpSimd
// affine patterns (iota, affine_select).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace vector_binding {
namespace {

// -------------------------------------------------------------------------------- selection and search

bool comparison(AluOp op) {
  return op == AluOp::equal || op == AluOp::not_equal || op == AluOp::greater || op == AluOp::greater_equal ||
         op == AluOp::less || op == AluOp::less_equal;
}

Value isa_range_select(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},    {"on_true_tile", true}, {"comp_op0", true}, {"comp_op1", true},
                                 {"bound0", true}, {"bound1", true},       {"reduce_cmd"},     {"reduce_res"},
                                 {"reduce_op"},    {"range_start"},        {"on_false_value"}, {"name"}};
  Value v[12];
  bind("range_select", ps, a, v);
  require_available(in, "range_select", Opcode::range_select);
  OpBuilder b(in, "range_select", Opcode::range_select);
  auto* dst = b.operand(0, v[0], "dst");
  auto* on_true = b.operand(1, v[1], "on_true_tile");
  b.same_shape(dst, "dst", on_true, "on_true_tile", true);
  if (!isa::is_float(on_true->view.dtype))
    raise("ValueError", "range_select: on_true_tile must have a float dtype, got " +
                            std::string(dtype_str(on_true->view.dtype)));
  auto& p = b.params();
  p.op0 = b.alu(v[2], "comp_op0");
  p.op1 = b.alu(v[3], "comp_op1");
  for (AluOp o : {p.op0, p.op1})
    require_ops("range_select", o, "comp_op0/comp_op1",
                {AluOp::equal, AluOp::less, AluOp::less_equal, AluOp::greater, AluOp::greater_equal},
                "nl.equal, nl.less, nl.less_equal, nl.greater or nl.greater_equal");
  b.column(b.operand(2, v[4], "bound0"), "bound0", on_true);
  b.column(b.operand(3, v[5], "bound1"), "bound1", on_true);
  p.reduce_cmd = reduce_cmd(b, v[6], ReduceCmd::reset_reduce);
  if (p.reduce_cmd == ReduceCmd::load_reduce) raise("ValueError", "range_select: reduce_cmd=load_reduce is not supported");
  result_column(b, 4, v[7], "reduce_res", on_true);
  p.reduce_op = present(v[8]) ? b.alu(v[8], "reduce_op") : AluOp::maximum;
  require_ops("range_select", p.reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
  if (present(v[9])) p.imm0 = b.number(v[9], "range_start");
  p.imm1 = -std::numeric_limits<float>::max();
  if (present(v[10]) && b.number(v[10], "on_false_value") != p.imm1)
    raise("ValueError", "range_select: on_false_value must be the fp32 minimum -3.4028235e+38, got " + in.repr(v[10]));
  b.name(v[11]);
  return b.emit();
}

Value isa_select_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},   {"predicate", true}, {"on_true", true}, {"on_false", true},
                                 {"reduce_res"}, {"reduce_cmd"},      {"reduce_op"},     {"reverse_pred"},
                                 {"name"}};
  Value v[9];
  bind("select_reduce", ps, a, v);
  OpBuilder b(in, "select_reduce", Opcode::select_reduce);
  auto* dst = b.operand(0, v[0], "dst");
  auto* pred = b.operand(1, v[1], "predicate");
  auto* on_true = b.operand(2, v[2], "on_true");
  b.same_shape(dst, "dst", pred, "predicate", true);
  b.same_shape(dst, "dst", on_true, "on_true", true);
  not_both_psum("select_reduce", on_true, "on_true", pred, "predicate");
  const isa::DType pd = pred->view.dtype;
  // bool_ (a legacy comparison's result) is a byte holding 0 or 1, as uint8.
  if (!(pd == isa::DType::int8 || pd == isa::DType::uint8 || pd == isa::DType::int16 || pd == isa::DType::uint16 ||
        pd == isa::DType::bool_))
    raise("ValueError", "select_reduce: predicate must be int8, uint8, int16, uint16 or bool, got " + std::string(dtype_str(pd)));
  auto& p = b.params();
  column_or_number(b, 3, v[3], "on_false", on_true, p.imm0);
  result_column(b, 4, v[4], "reduce_res", on_true);
  p.reduce_cmd = reduce_cmd(b, v[5], ReduceCmd::idle);
  if (p.reduce_cmd == ReduceCmd::load_reduce) raise("ValueError", "select_reduce: reduce_cmd=load_reduce is not supported");
  p.reduce_op = present(v[6]) ? b.alu(v[6], "reduce_op") : AluOp::maximum;
  require_ops("select_reduce", p.reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
  p.reverse0 = flag(in, v[7]);
  b.name(v[8]);
  return b.emit();
}

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

// ------------------------------------------------------------------------------ GpSimd affine patterns

// pattern = [[step, num], ...] (at most 4 pairs, outer -> inner) into step0..3/num0..3, right-aligned so
// num3 is the innermost; the nums must multiply to dst's elements per partition.
void affine_pattern(OpBuilder& b, const char* fname, const Value& pat, const TensorObj* dst) {
  if (!pat.is(VK::List) && !pat.is(VK::Tuple))
    raise("TypeError", std::string(fname) + ": pattern must be a list of [step, num] pairs, got '" + type_name(pat) + "'");
  const auto& pairs = items_of(pat);
  if (pairs.empty() || pairs.size() > 4)
    raise("ValueError", std::string(fname) + ": pattern must have 1 to 4 [step, num] pairs, got " +
                            std::to_string(pairs.size()));
  int32_t step[4] = {0, 0, 0, 0}, num[4] = {1, 1, 1, 1};
  int64_t total = 1;
  const size_t first = 4 - pairs.size();
  for (size_t k = 0; k < pairs.size(); ++k) {
    const Value& pr = pairs[k];
    if ((!pr.is(VK::List) && !pr.is(VK::Tuple)) || items_of(pr).size() != 2)
      raise("TypeError", std::string(fname) + ": pattern entry " + std::to_string(k) + " must be a [step, num] pair");
    step[first + k] = int32_arg(fname, items_of(pr)[0], "pattern step");
    num[first + k] = int32_arg(fname, items_of(pr)[1], "pattern num");
    if (num[first + k] < 1 || num[first + k] > 65535)
      raise("ValueError", std::string(fname) + ": pattern num must be in [1, 65535], got " + std::to_string(num[first + k]));
    total *= num[first + k];
  }
  if (total != free_size(dst))
    raise("ValueError", std::string(fname) + ": the pattern covers " + std::to_string(total) +
                            " elements per partition but dst has shape " + shape_str(dst->view.shape()));
  auto& p = b.params();
  p.step0 = step[0], p.step1 = step[1], p.step2 = step[2], p.step3 = step[3];
  p.num0 = uint16_t(num[0]), p.num1 = uint16_t(num[1]), p.num2 = uint16_t(num[2]), p.num3 = uint16_t(num[3]);
}

Value isa_iota(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"pattern", true}, {"offset"}, {"channel_multiplier"}, {"name"}};
  Value v[5];
  bind("iota", ps, a, v);
  OpBuilder b(in, "iota", Opcode::iota);
  auto* dst = b.operand(0, v[0], "dst");
  affine_pattern(b, "iota", v[1], dst);
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
  auto* dst = b.operand(0, v[0], "dst");
  auto* on_true = b.operand(1, v[3], "on_true_tile");
  b.same_shape(dst, "dst", on_true, "on_true_tile", true);
  affine_pattern(b, "affine_select", v[1], dst);
  auto& p = b.params();
  p.chan_mult = int32_arg("affine_select", v[2], "channel_multiplier");
  p.imm0 = b.number(v[4], "on_false_value");
  p.op0 = present(v[5]) ? b.alu(v[5], "cmp_op") : AluOp::equal;
  if (!comparison(p.op0))
    raise("ValueError", "affine_select: cmp_op must be a comparison (nl.equal, nl.not_equal, nl.greater, "
                        "nl.greater_equal, nl.less or nl.less_equal), got nl." + std::string(isa::alu_name(p.op0)));
  if (present(v[6])) p.offset = int32_arg("affine_select", v[6], "offset");
  b.name(v[7]);
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
  def("range_select", isa_range_select);
  def("select_reduce", isa_select_reduce);
  def("tensor_copy_predicated", isa_tensor_copy_predicated);
  def("reciprocal", isa_reciprocal);
  def("max8", isa_max8);
  def("nc_find_index8", isa_nc_find_index8);
  def("nc_match_replace8", isa_nc_match_replace8);
  def("iota", isa_iota);
  def("affine_select", isa_affine_select);
  def("nc_stream_shuffle", isa_nc_stream_shuffle);
}

}  // namespace vector_binding
}  // namespace nkisim::frontend
