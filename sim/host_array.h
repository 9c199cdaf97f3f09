// host_array.h - a host-side n-d array of raw little-endian elements (kernel inputs and outputs).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/dtype.h"

namespace nkisim::sim {

// The bytes of an input that is read only when the simulator binds it (e.g. an .npy file: sim::to_host_array
// on an NpyHandle), so a large input goes from the file straight into simulated HBM with no host copy.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t size() const = 0;                 // bytes produced (elements x dtype size)
  virtual void read_into(uint8_t* dst) const = 0;  // writes size() bytes; throws nkisim::Error
  // Where the bytes lie, unchanged, in a regular file that can be mapped page by page, or -1 (converted,
  // byte-swapped or in-memory sources).
  virtual int64_t file_offset() const { return -1; }
  // Maps the whole pages of [dst, dst + size()) from that file, copy-on-write (writes never reach the file),
  // and reads the partial pages at both ends: no copy and no zero-filled pages for a large input. Returns
  // false, having changed nothing, when it cannot (dst not congruent with file_offset() modulo the page size,
  // a short file, ...): then read_into must be used.
  virtual bool map_into(uint8_t* dst) const {
    (void)dst;
    return false;
  }
};

struct HostArray {
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // elements() * dtype_size(dtype) bytes, C order (unless `source` or `view`)
  // Inputs: when set, the bytes come from here instead of `data` (which is empty).
  std::shared_ptr<const ByteSource> source;
  // Outputs of a run with Options::outputs_in_place: the bytes are [view, view + view_size) in the run's
  // simulated HBM, kept alive by `owner` (data is empty).
  const uint8_t* view = nullptr;
  size_t view_size = 0;
  std::shared_ptr<const void> owner;

  size_t elements() const {
    size_t n = 1;
    for (auto d : shape) n *= size_t(d);
    return n;
  }
  size_t byte_size() const { return source ? source->size() : view ? view_size : data.size(); }
  // The bytes in memory (`view` or `data`); null for a `source` array (see materialize()).
  const uint8_t* bytes() const { return source ? nullptr : view ? view : data.data(); }
  // The bytes as an owned vector (reads a source, copies a view).
  std::vector<uint8_t> materialize() const {
    if (source) {
      std::vector<uint8_t> v(source->size());
      source->read_into(v.data());
      return v;
    }
    if (view) return std::vector<uint8_t>(view, view + view_size);
    return data;
  }
};

}  // namespace nkisim::sim
