// kernel.cpp - small Kernel IR helpers.
#include "ir/kernel.h"

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

View Kernel::full_view(int tensor) const {
  const Tensor& t = tensors.at(size_t(tensor));
  View v;
  v.tensor = tensor;
  v.dtype = t.dtype;
  v.dims.resize(t.shape.size());
  int64_t stride = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    v.dims[i] = ViewDim{stride, t.shape[i]};
    stride *= t.shape[i];
  }
  return v;
}

}  // namespace nkisim::ir
