// nki_isa_copy.cpp - nki.isa bindings of the copy family: tensor_copy (verifiers: isa/verify_copy.cpp, executors:
// sim/exec_copy.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// dtype= (the tutorials' spelling, not in the API reference): the copy converts to dst's dtype whatever it says.
void dtype_arg(Interp& in, OpBuilder&, const Value* v) {
  if (present(v[4]) && !v[4].is(VK::DType))
    raise("TypeError", "tensor_copy: dtype must be an NKI dtype such as nl.bfloat16, got " + in.repr(v[4]));
}

const Binding kBindings[] = {
    {"tensor_copy", Opcode::tensor_copy, {tensor("dst", 0), tensor("src", 1), kEngine, kName, custom("dtype")},
     dtype_arg},
};

}  // namespace

void install_nki_isa_copy(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
