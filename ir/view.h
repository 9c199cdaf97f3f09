// view.h - view arithmetic on ir::View: full views, slicing, integer indexing (on-chip vs HBM rules of
// nki-language.md §3.3), nl.ds, reshape, permute, broadcast. Shared by the front end and IR passes.
// Every function validates its arguments and throws nkisim::Error (without a location) on misuse;
// callers attach the source location.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace nkisim::ir {

// The whole tensor `id`, row-major, in the tensor's dtype.
View full_view(const Tensor& t, int id);

// Calls f(flat element index) for every element of v, in its tensor's elements (v's dtype is the tensor's).
template <class F>
void for_each_element(const View& v, F&& f) {
  const size_t nd = v.dims.size();
  if (v.num_elements() == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t at = v.offset;
  while (true) {
    f(at);
    size_t d = nd;
    while (d > 0) {
      --d;
      if (++idx[d] < v.dims[d].count) {
        at += v.dims[d].stride;
        break;
      }
      at -= (v.dims[d].count - 1) * v.dims[d].stride;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (nd == 0) return;
  }
}

// One element of an indexing key: `i`, `start:stop:step` (bounds optional, Python defaults), or `...`.
struct IndexKey {
  enum Kind : uint8_t { Int, Slice, Ellipsis } kind = Int;
  int64_t index = 0;  // Int (negative counts from the end)
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  static IndexKey at(int64_t i) { return {Int, i, std::nullopt, std::nullopt, 1}; }
  static IndexKey range(std::optional<int64_t> b, std::optional<int64_t> e, int64_t s = 1) {
    return {Slice, 0, b, e, s};
  }
  static IndexKey ds(int64_t start, int64_t size) { return {Slice, 0, start, start + size, 1}; }  // nl.ds
  static IndexKey all() { return {Ellipsis, 0, std::nullopt, std::nullopt, 1}; }
};

// `view[keys...]`. On-chip (SBUF/PSUM): an int on dim 0 keeps a size-1 dim; an int on a free dim drops
// it unless fewer than 2 dims would remain, in which case the last such dim is kept with size 1; the
// partition dim cannot be strided. HBM: an int drops the dim; the result keeps at least one dim.
// Indices and slice bounds must lie inside the dimension (negative values count from the end; slices are
// not clamped); steps must be positive; slices must not be empty.
View index_view(const View& v, bool on_chip, const std::vector<IndexKey>& keys);

// Elementary operations (dims are 0-based and validated).
View slice_dim(const View& v, int dim, int64_t start, int64_t stop, int64_t step = 1);
View select_dim(const View& v, int dim, int64_t index);  // drops the dim
View permute_view(const View& v, const std::vector<int>& order, bool on_chip);
View broadcast_dim(const View& v, int dim, int64_t size, bool on_chip);
View expand_dim(const View& v, int dim, bool on_chip);
View squeeze_dim(const View& v, int dim, bool on_chip);
// Reshape without copying; `shape` may contain one -1. On-chip views keep shape[0] (the partition dim).
View reshape_view(const View& v, std::vector<int64_t> shape, bool on_chip);
// Splits dimension `dim` into `shape` (one -1 allowed); not the partition dim on-chip.
View reshape_dim(const View& v, int dim, std::vector<int64_t> shape, bool on_chip);
// Merges dimensions start..end (inclusive) into one; they must be contiguous with each other.
View flatten_dims(const View& v, int start, int end, bool on_chip);
// The same bytes seen as `dtype` (view(dtype) / reinterpret_cast): the last dimension must be contiguous and
// is rescaled by the size ratio; offsets and the other strides are rescaled and must stay whole.
View reinterpret_view(const View& v, isa::DType dtype);
// `base.ap(pattern, offset, dtype=dtype)`: element (i0, i1, ...) is flat element `offset + sum(ik * stride_k)`
// of the storage seen as `dtype`, independent of any view. On-chip: pattern[0] is the partition dim and its
// stride must be the storage's elements per partition (or `view_partition_stride` when nonzero: the elements per
// partition of the view .ap() was called on, the stride a helper deriving strides from that view's shape
// gives); free dims stay inside a partition. HBM: any pattern inside the storage.
View ap_view(const Tensor& base, int id, isa::DType dtype, const std::vector<ViewDim>& pattern, int64_t offset,
             std::string* out_of_bounds = nullptr,  // set: bounds errors go here instead of throwing
             int64_t view_partition_stride = 0);

bool is_contiguous(const View& v);                            // row-major dense (size-1 dims ignored)
std::string shape_string(const std::vector<int64_t>& shape);  // "(128, 512)"

}  // namespace nkisim::ir
