// nki_isa_vector_random.cpp - nki.isa bindings: random numbers (rng, rand2, dropout, set_rng_seed,
// rand_set_state, rand_get_state) and the GpSimd gathers (local_gather, sequence_bounds, nonzero_with_count, topk).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace vector_binding {
namespace {

// ------------------------------------------------------------------------------------- random numbers

bool is_gpsimd(const Value& engine) {
  return present(engine) && engine.is(VK::Enum) && engine.enum_type() == EnumEngine && engine.enum_value() == kEngineGpSimd;
}
bool is_vector(const Value& engine) {
  return present(engine) && engine.is(VK::Enum) && engine.enum_type() == EnumEngine && engine.enum_value() == kEngineVector;
}

Value isa_rng(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"engine"}, {"name"}};
  Value v[3];
  bind("rng", ps, a, v);
  OpBuilder b(in, "rng", Opcode::rng);
  auto* dst = b.operand(0, v[0], "dst");
  if (isa::is_float(dst->view.dtype))
    raise("ValueError", "rng: dst must have an integer dtype, got " + std::string(dtype_str(dst->view.dtype)));
  b.engine(v[1]);
  if (is_gpsimd(v[1])) {
    if (in.nki->nc_version == 2) raise("ValueError", "rng: engine=gpsimd needs trn2 or later");
    if (dst->base().buffer != ir::Buffer::sbuf) raise("ValueError", "rng: engine=gpsimd writes SBUF only");
  }
  b.name(v[2]);
  return b.emit();
}

Value isa_rand2(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"min", true}, {"max", true}, {"name"}};
  Value v[4];
  bind("rand2", ps, a, v);
  require_available(in, "rand2", Opcode::rand2);
  OpBuilder b(in, "rand2", Opcode::rand2);
  auto* dst = b.operand(0, v[0], "dst");
  column_or_number(b, 1, v[1], "min", dst, b.params().imm0);
  column_or_number(b, 2, v[2], "max", dst, b.params().imm1);
  b.name(v[3]);
  return b.emit();
}

Value isa_dropout(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"prob", true}, {"name"}};
  Value v[4];
  bind("dropout", ps, a, v);
  OpBuilder b(in, "dropout", Opcode::dropout);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  b.same_shape(dst, "dst", data, "data", true);
  if (dst->view.dtype != data->view.dtype)
    raise("ValueError", "dropout: dst must have data's dtype " + std::string(dtype_str(data->view.dtype)) + ", got " +
                            std::string(dtype_str(dst->view.dtype)));
  column_or_number(b, 2, v[2], "prob", data, b.params().imm0);
  if (!v[2].is(VK::Tensor) && (b.params().imm0 < 0.0f || b.params().imm0 > 1.0f))
    raise("ValueError", "dropout: prob must be in [0, 1], got " + in.repr(v[2]));
  b.name(v[3]);
  return b.emit();
}

void state_tile(const char* fname, const TensorObj* t, int words) {
  if (t->view.dtype != isa::DType::uint32 && t->view.dtype != isa::DType::int32)
    raise("ValueError", std::string(fname) + ": the state tile must be uint32, got " + std::string(dtype_str(t->view.dtype)));
  if (free_size(t) != words)
    raise("ValueError", std::string(fname) + ": the state tile must have " + std::to_string(words) +
                            " words per partition on this engine, got shape " + shape_str(t->view.shape()));
}

Value isa_set_rng_seed(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"src_seeds", true}, {"name"}};
  Value v[2];
  bind("set_rng_seed", ps, a, v);
  OpBuilder b(in, "set_rng_seed", Opcode::set_rng_seed);
  auto* src = b.operand(0, v[0], "src_seeds");
  if (src->view.num_elements() != 1 || isa::dtype_size(src->view.dtype) != 4)
    raise("ValueError", "set_rng_seed: src_seeds must be a (1, 1) tile of a 32-bit dtype, got " +
                            shape_str(src->view.shape()) + " " + std::string(dtype_str(src->view.dtype)));
  b.name(v[1]);
  return b.emit();
}

Value rand_state(Interp& in, CallArgs& a, const char* fname, Opcode op, const char* arg) {
  static const ParamSpec ps_set[] = {{"src_seeds", true}, {"engine"}, {"name"}};
  static const ParamSpec ps_get[] = {{"dst", true}, {"engine"}, {"name"}};
  Value v[3];
  bind(fname, op == Opcode::rand_set_state ? ps_set : ps_get, a, v);
  require_available(in, fname, op);
  OpBuilder b(in, fname, op);
  auto* t = b.operand(0, v[0], arg);
  b.engine(v[1]);
  const bool vector = is_vector(v[1]);
  if (vector && in.nki->nc_version < 4)
    raise("ValueError", std::string(fname) + ": engine=vector needs trn3 (the VectorE state is not accessible before)");
  if (!vector && t->base().buffer != ir::Buffer::sbuf)
    raise("ValueError", std::string(fname) + ": the GpSimd state tile must be in SBUF");
  state_tile(fname, t, vector ? 24 : 6);
  b.name(v[2]);
  return b.emit();
}
Value isa_rand_set_state(Interp& in, const BuiltinObj&, CallArgs& a) {
  return rand_state(in, a, "rand_set_state", Opcode::rand_set_state, "src_seeds");
}
Value isa_rand_get_state(Interp& in, const BuiltinObj&, CallArgs& a) {
  return rand_state(in, a, "rand_get_state", Opcode::rand_get_state, "dst");
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
  require_available(in, "nonzero_with_count", Opcode::nonzero_with_count);
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

void install_nki_isa_vector_random(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("rng", isa_rng);
  def("rand2", isa_rand2);
  def("dropout", isa_dropout);
  def("set_rng_seed", isa_set_rng_seed);
  def("rand_set_state", isa_rand_set_state);
  def("rand_get_state", isa_rand_get_state);
  def("local_gather", isa_local_gather);
  def("sequence_bounds", isa_sequence_bounds);
  def("nonzero_with_count", isa_nonzero_with_count);
  def("topk", isa_topk);
}

}  // namespace vector_binding
}  // namespace nkisim::frontend
