// nki_isa_vector_random.cpp - nki.isa bindings of the vector_random family: rng, rand2, dropout, set_rng_seed,
// rand_set_state, rand_get_state (verifiers: isa/verify_vector_random.cpp, executors: sim/exec_vector_random.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

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

}  // namespace

void install_nki_isa_vector_random(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("rng", isa_rng);
  def("rand2", isa_rand2);
  def("dropout", isa_dropout);
  def("set_rng_seed", isa_set_rng_seed);
  def("rand_set_state", isa_rand_set_state);
  def("rand_get_state", isa_rand_get_state);
}

}  // namespace nkisim::frontend
