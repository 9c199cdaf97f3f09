// nki_isa_vector_gpsimd.cpp - nki.isa bindings of the vector_gpsimd family: iota, affine_select, local_gather,
// sequence_bounds, nonzero_with_count, topk (verifiers: isa/verify_vector_gpsimd.cpp, executors:
// sim/exec_vector_gpsimd.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

bool comparison(AluOp op) {
  return op == AluOp::equal || op == AluOp::not_equal || op == AluOp::greater || op == AluOp::greater_equal ||
         op == AluOp::less || op == AluOp::less_equal;
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

// ------------------------------------------------------------------------------------- GpSimd gathers

void core_multiple(const char* fname, const TensorObj* t, const char* arg) {
  if (partitions(t) % 16 != 0)
    raise("ValueError", std::string(fname) + ": " + arg + " must have a multiple of 16 partitions (whole GpSimd cores), got " +
                            shape_str(t->view.shape()));
}

Value isa_local_gather(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},         {"src_buffer", true}, {"index", true},
                                 {"num_elem_per_idx"}, {"num_valid_indices"}, {"name"}};
  Value v[6];
  bind("local_gather", ps, a, v);
  OpBuilder b(in, "local_gather", Opcode::local_gather);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src_buffer");
  auto* index = b.operand(2, v[2], "index");
  core_multiple("local_gather", src, "src_buffer");
  require_same_partitions("local_gather", index, "index", src, "src_buffer");
  require_same_partitions("local_gather", dst, "dst", src, "src_buffer");
  if (index->view.dtype != isa::DType::uint16)
    raise("ValueError", "local_gather: index must be uint16, got " + std::string(dtype_str(index->view.dtype)));
  if (dst->view.dtype != src->view.dtype)
    raise("ValueError", "local_gather: dst and src_buffer must have the same dtype (no casting)");
  auto& p = b.params();
  const int32_t k = present(v[3]) ? int32_arg("local_gather", v[3], "num_elem_per_idx") : 1;
  if (!(k == 1 || k == 2 || k == 4 || k == 8 || k == 16 || k == 32))
    raise("ValueError", "local_gather: num_elem_per_idx must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(k));
  p.elem_per_idx = uint16_t(k);
  const int64_t all = 16 * free_size(index);
  const int64_t nv = present(v[4]) ? int32_arg("local_gather", v[4], "num_valid_indices") : all;
  if (nv < 1 || nv > all || nv > 4096)
    raise("ValueError", "local_gather: num_valid_indices must be in [1, " + std::to_string(std::min<int64_t>(all, 4096)) +
                            "], got " + std::to_string(nv));
  p.num_valid = int32_t(nv);
  if (free_size(dst) != nv * k)
    raise("ValueError", "local_gather: dst must have num_valid_indices * num_elem_per_idx = " + std::to_string(nv * k) +
                            " elements per partition, got shape " + shape_str(dst->view.shape()));
  b.name(v[5]);
  return b.emit();
}

Value isa_sequence_bounds(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"segment_ids", true}, {"name"}};
  Value v[3];
  bind("sequence_bounds", ps, a, v);
  OpBuilder b(in, "sequence_bounds", Opcode::sequence_bounds);
  auto* dst = b.operand(0, v[0], "dst");
  auto* ids = b.operand(1, v[1], "segment_ids");
  if (partitions(ids) != 1 || partitions(dst) != 1 || free_size(dst) != 2 * free_size(ids))
    raise("ValueError", "sequence_bounds: segment_ids must be (1, n) and dst (1, 2, n); got " + shape_str(ids->view.shape()) +
                            " and " + shape_str(dst->view.shape()));
  for (auto* t : {dst, ids})
    if (t->view.dtype != isa::DType::float32 && t->view.dtype != isa::DType::int32)
      raise("ValueError", "sequence_bounds: dst and segment_ids must be float32 or int32, got " +
                              std::string(dtype_str(t->view.dtype)));
  b.name(v[2]);
  return b.emit();
}

Value isa_nonzero_with_count(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"index_offset"}, {"padding_val"}, {"name"}};
  Value v[5];
  bind("nonzero_with_count", ps, a, v);
  OpBuilder b(in, "nonzero_with_count", Opcode::nonzero_with_count);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  require_same_partitions("nonzero_with_count", dst, "dst", src, "src");
  require_free("nonzero_with_count", dst, "dst", free_size(src) + 1, "one more element per partition than src");
  if (src->view.dtype != isa::DType::float32 && src->view.dtype != isa::DType::int32)
    raise("ValueError", "nonzero_with_count: src must be float32 or int32, got " + std::string(dtype_str(src->view.dtype)));
  if (dst->view.dtype != isa::DType::int32)
    raise("ValueError", "nonzero_with_count: dst must be int32, got " + std::string(dtype_str(dst->view.dtype)));
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
  auto* vals = b.operand(0, v[0], "val_dst");
  auto* idx = b.operand(1, v[1], "idx_dst");
  auto* src = b.operand(2, v[2], "src");
  core_multiple("topk", src, "src");
  require_same_partitions("topk", vals, "val_dst", src, "src");
  require_same_partitions("topk", idx, "idx_dst", src, "src");
  if (src->view.dtype != isa::DType::bfloat16 || vals->view.dtype != isa::DType::bfloat16)
    raise("ValueError", "topk: src and val_dst must be bfloat16");
  if (idx->view.dtype != isa::DType::uint32) raise("ValueError", "topk: idx_dst must be uint32");
  const int32_t n = int32_arg("topk", v[3], "n");
  const int64_t K = free_size(vals);
  if (n < 8 || n >= 65536) raise("ValueError", "topk: n must be in [8, 65536), got " + std::to_string(n));
  if (K < 1 || K >= 32768 || K > n)
    raise("ValueError", "topk: K (val_dst's free size " + std::to_string(K) + ") must be in [1, min(n, 32767)]");
  if (free_size(idx) != K) raise("ValueError", "topk: idx_dst must have the shape of val_dst");
  if (free_size(src) * 16 < n)
    raise("ValueError", "topk: src must have at least ceil(n / 16) = " + std::to_string((n + 15) / 16) +
                            " elements per partition, got shape " + shape_str(src->view.shape()));
  b.params().num_valid = n;
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
