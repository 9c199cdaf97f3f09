// verify_copy.cpp - rules of tensor_copy (executor: sim/exec_copy.cpp).
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_tensor_copy(const Check& c) {
  c.same_shape(0, 1);
  // "On NeuronCore v2, tensor_copy is not supported on the Scalar Engine. Instead, use nisa.activation with
  // op=nl.copy" (SDK nki/api/nki/isa/__init__.py, tensor_copy).
  if (c.ins.engine == Engine::Scalar && c.nc() < 3)
    c.fail("the scalar engine has no tensor_copy on " + c.t.name +
           " (NeuronCore-v2): use nisa.activation with op=nl.copy, or engine=nisa.vector_engine / gpsimd_engine");
}

}  // namespace nkisim::isa::rules
