// host_array.h - a host-side n-d array of raw little-endian elements (kernel inputs and outputs).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/dtype.h"

namespace nkisim::sim {

struct HostArray {
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // elements() * dtype_size(dtype) bytes, C order
  size_t elements() const {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    return n;
  }
};

}  // namespace nkisim::sim
