// nki_isa_vector.cpp - nki.isa bindings: Vector/Scalar/GpSimd instructions beyond the first six.
#include "frontend/isa_builder.h"

namespace nkisim::frontend {

void install_nki_isa_vector(Interp& in, ModuleObj* isa) {
  (void)in;
  (void)isa;
}

}  // namespace nkisim::frontend
