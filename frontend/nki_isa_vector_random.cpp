// nki_isa_vector_random.cpp - nki.isa bindings of the vector_random family: rng, rand2, dropout, set_rng_seed,
// rand_set_state, rand_get_state (verifiers: isa/verify_vector_random.cpp, executors: sim/exec_vector_random.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

Value isa_rng(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"engine"}, {"name"}};
  Value v[3];
  bind("rng", ps, a, v);
  OpBuilder b(in, "rng", Opcode::rng);
  b.operand(0, v[0], "dst");
  b.engine(v[1]);
  b.name(v[2]);
  return b.emit();
}

Value isa_rand2(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"min", true}, {"max", true}, {"name"}};
  Value v[4];
  bind("rand2", ps, a, v);
  OpBuilder b(in, "rand2", Opcode::rand2);
  b.operand(0, v[0], "dst");
  column_or_number(b, 1, v[1], "min", b.params().imm0);
  column_or_number(b, 2, v[2], "max", b.params().imm1);
  b.name(v[3]);
  return b.emit();
}

Value isa_dropout(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"prob", true}, {"name"}};
  Value v[4];
  bind("dropout", ps, a, v);
  OpBuilder b(in, "dropout", Opcode::dropout);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  column_or_number(b, 2, v[2], "prob", b.params().imm0);
  b.name(v[3]);
  return b.emit();
}

Value isa_set_rng_seed(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"src_seeds", true}, {"name"}};
  Value v[2];
  bind("set_rng_seed", ps, a, v);
  OpBuilder b(in, "set_rng_seed", Opcode::set_rng_seed);
  b.operand(0, v[0], "src_seeds");
  b.name(v[1]);
  return b.emit();
}

Value rand_state(Interp& in, CallArgs& a, const char* fname, Opcode op, const char* arg) {
  static const ParamSpec ps_set[] = {{"src_seeds", true}, {"engine"}, {"name"}};
  static const ParamSpec ps_get[] = {{"dst", true}, {"engine"}, {"name"}};
  Value v[3];
  bind(fname, op == Opcode::rand_set_state ? ps_set : ps_get, a, v);
  OpBuilder b(in, fname, op);
  b.operand(0, v[0], arg);
  b.engine(v[1]);
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
