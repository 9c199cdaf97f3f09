// nki_isa_tensor.cpp - nki.isa bindings: Tensor Engine instructions (nc_matmul, nc_transpose, ...).
#include "frontend/isa_builder.h"

namespace nkisim::frontend {

void install_nki_isa_tensor(Interp& in, ModuleObj* isa) {
  (void)in;
  (void)isa;
}

}  // namespace nkisim::frontend
