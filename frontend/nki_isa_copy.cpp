// nki_isa_copy.cpp - nki.isa bindings of the copy family: tensor_copy (verifiers: isa/verify_copy.cpp, executors:
// sim/exec_copy.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

Value isa_tensor_copy(Interp& in, const BuiltinObj&, CallArgs& a) {
  // dtype= (the tutorials' spelling, not in the API reference): the copy converts to dst's dtype whatever it says.
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"engine"}, {"name"}, {"dtype"}};
  Value v[5];
  bind("tensor_copy", ps, a, v);
  OpBuilder b(in, "tensor_copy", isa::Opcode::tensor_copy);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
  if (isa_binding::present(v[4]) && !v[4].is_none() && !v[4].is(VK::DType))
    raise("TypeError", "tensor_copy: dtype must be an NKI dtype such as nl.bfloat16, got " + in.repr(v[4]));
  b.engine(v[2]);
  b.name(v[3]);
  return b.emit();
}

}  // namespace

void install_nki_isa_copy(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_copy", isa_tensor_copy);
}

}  // namespace nkisim::frontend
