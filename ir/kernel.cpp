// kernel.cpp - small Kernel IR helpers.
#include "ir/kernel.h"

#include "ir/view.h"

namespace nkisim::ir {

std::string_view buffer_name(Buffer b) {
  switch (b) {
    case Buffer::sbuf: return "sbuf";
    case Buffer::psum: return "psum";
    case Buffer::hbm: return "hbm";
    case Buffer::shared_hbm: return "shared_hbm";
  }
  return "?";
}

View Kernel::full_view(int tensor) const { return ir::full_view(tensors.at(size_t(tensor)), tensor); }

bool Kernel::is_whole(const View& v) const {
  const Tensor& t = tensors.at(size_t(v.tensor));
  return v.dtype == t.dtype && v.offset == 0 && v.num_elements() == t.num_elements() && v.dims == full_view(v.tensor).dims;
}

}  // namespace nkisim::ir
