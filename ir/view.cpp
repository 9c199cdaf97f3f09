// view.cpp - view arithmetic: slicing, indexing rules, reshape/permute/broadcast on ir::View.
#include "ir/view.h"

#include <algorithm>

#include "isa/diagnostic.h"
#include "isa/dtype.h"

namespace nkisim::ir {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

void check_dim(const View& v, int dim, const char* what) {
  if (dim < 0 || dim >= int(v.dims.size()))
    fail(std::string(what) + ": dimension " + std::to_string(dim) + " is out of range for a " +
         std::to_string(v.dims.size()) + "-dimensional tensor");
}

}  // namespace

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

View full_view(const Tensor& t, int id) {
  View v;
  v.tensor = id;
  v.dtype = t.dtype;
  v.offset = 0;
  v.dims.resize(t.shape.size());
  int64_t stride = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    v.dims[i] = ViewDim{stride, t.shape[i]};
    stride *= t.shape[i];
  }
  return v;
}

View slice_dim(const View& v, int dim, int64_t start, int64_t stop, int64_t step) {
  check_dim(v, dim, "slice");
  int64_t n = v.dims[dim].count;
  if (step <= 0) fail("slice step must be positive (got " + std::to_string(step) + ")");
  // An empty slice (start == stop, as nl.ds(start, 0) gives) is a view of no elements: nki-library's
  // cross_entropy_forward takes one for the core that gets no positions. An instruction on it is an error
  // (ir/access.cpp); a reversed slice is one too.
  if (start < 0 || stop > n || start > stop)
    fail("slice [" + std::to_string(start) + ":" + std::to_string(stop) + "] is " +
         (start > stop && start >= 0 && stop <= n ? std::string("reversed") : "out of bounds") + " for dimension " +
         std::to_string(dim) + " of size " + std::to_string(n));
  View r = v;
  r.offset += start * v.dims[dim].stride;
  r.dims[dim].count = (stop - start + step - 1) / step;
  r.dims[dim].stride = v.dims[dim].stride * step;
  return r;
}

View select_dim(const View& v, int dim, int64_t index) {
  check_dim(v, dim, "select");
  int64_t n = v.dims[dim].count;
  if (index < 0 || index >= n)
    fail("index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(dim) + " of size " +
         std::to_string(n));
  View r = v;
  r.offset += index * v.dims[dim].stride;
  r.dims.erase(r.dims.begin() + dim);
  return r;
}

View index_view(const View& v, bool on_chip, const std::vector<IndexKey>& keys) {
  const int nd = int(v.dims.size());
  int ellipses = 0, used = 0;
  for (auto& k : keys) {
    if (k.kind == IndexKey::Ellipsis)
      ++ellipses;
    else
      ++used;
  }
  if (ellipses > 1) fail("an index can only have a single ellipsis ('...')");
  if (used > nd)
    fail("too many indices for tensor: tensor is " + std::to_string(nd) + "-dimensional, but " + std::to_string(used) +
         " were indexed");
  View out;
  out.tensor = v.tensor;
  out.dtype = v.dtype;
  out.offset = v.offset;
  out.dims.reserve(nd);
  uint64_t dropped = 0;  // bit d: dim d was indexed by an int on a droppable dim
  int last_dropped = -1;
  const IndexKey full = IndexKey::range(std::nullopt, std::nullopt);
  size_t ki = 0;
  int expand = 0;  // full slices still to emit for the ellipsis
  for (int d = 0; d < nd; ++d) {
    const IndexKey* kp;
    if (expand > 0) {
      kp = &full;
      --expand;
    } else if (ki < keys.size() && keys[ki].kind == IndexKey::Ellipsis) {
      ++ki;
      expand = nd - used;
      if (expand == 0) {
        --d;
        continue;
      }
      kp = &full;
      --expand;
    } else if (ki < keys.size()) {
      kp = &keys[ki++];
    } else {
      kp = &full;
    }
    const IndexKey& k = *kp;
    int64_t n = v.dims[d].count;
    int64_t stride = v.dims[d].stride;
    if (k.kind == IndexKey::Int) {
      int64_t i = k.index < 0 ? k.index + n : k.index;
      if (i < 0 || i >= n)
        fail("index " + std::to_string(k.index) + " is out of bounds for dimension " + std::to_string(d) + " of size " +
             std::to_string(n));
      out.offset += i * stride;
      out.dims.push_back(ViewDim{stride, 1});
      if (!(on_chip && d == 0)) {
        dropped |= uint64_t(1) << (d & 63);
        last_dropped = d;
      }
      continue;
    }
    if (k.step <= 0) fail("slice step must be positive (got " + std::to_string(k.step) + ")");
    if (on_chip && d == 0 && k.step != 1)
      fail("the partition dimension cannot be sliced with a step (got step " + std::to_string(k.step) + ")");
    int64_t start = k.start ? (*k.start < 0 ? *k.start + n : *k.start) : 0;
    int64_t stop = k.stop ? (*k.stop < 0 ? *k.stop + n : *k.stop) : n;
    if (start < 0 || stop > n || start > stop) {  // start == stop: an empty view (see slice_dim)
      auto txt = [](std::optional<int64_t> x) { return x ? std::to_string(*x) : std::string(); };
      fail("slice [" + txt(k.start) + ":" + txt(k.stop) + "] is " +
           (start > stop && start >= 0 && stop <= n ? std::string("reversed") : "out of bounds") + " for dimension " +
           std::to_string(d) + " of size " + std::to_string(n));
    }
    out.offset += start * stride;
    out.dims.push_back(ViewDim{stride * k.step, (stop - start + k.step - 1) / k.step});
  }
  if (!dropped) return out;
  int kept = 0;
  for (int d = 0; d < nd; ++d) kept += !(dropped >> (d & 63) & 1);
  int min_dims = on_chip ? std::min(2, nd) : 1;
  if (kept < min_dims && last_dropped >= 0) dropped &= ~(uint64_t(1) << (last_dropped & 63));
  size_t w = 0;
  for (int d = 0; d < nd; ++d)
    if (!(dropped >> (d & 63) & 1)) out.dims[w++] = out.dims[d];
  out.dims.resize(w);
  return out;
}

View permute_view(const View& v, const std::vector<int>& order, bool on_chip) {
  int nd = int(v.dims.size());
  if (int(order.size()) != nd)
    fail("permute: expected " + std::to_string(nd) + " dimensions, got " + std::to_string(order.size()));
  std::vector<bool> seen(nd, false);
  for (int o : order) {
    if (o < 0 || o >= nd || seen[o]) fail("permute: the order must be a permutation of 0.." + std::to_string(nd - 1));
    seen[o] = true;
  }
  if (on_chip && order[0] != 0) fail("permute: the partition dimension of an on-chip tensor must stay first");
  View r = v;
  for (int i = 0; i < nd; ++i) r.dims[i] = v.dims[order[i]];
  return r;
}

View broadcast_dim(const View& v, int dim, int64_t size, bool on_chip) {
  check_dim(v, dim, "broadcast");
  if (on_chip && dim == 0) fail("broadcast: the partition dimension of an on-chip tensor cannot be broadcast");
  if (v.dims[dim].count != 1)
    fail("broadcast: dimension " + std::to_string(dim) + " has size " + std::to_string(v.dims[dim].count) +
         ", only size-1 dimensions can be broadcast");
  if (size <= 0) fail("broadcast: size must be positive");
  View r = v;
  r.dims[dim] = ViewDim{0, size};
  return r;
}

View expand_dim(const View& v, int dim, bool on_chip) {
  if (dim < 0 || dim > int(v.dims.size())) fail("expand_dim: dimension " + std::to_string(dim) + " is out of range");
  if (on_chip && dim == 0) fail("expand_dim: cannot insert a dimension before the partition dimension");
  View r = v;
  int64_t stride = dim < int(v.dims.size()) ? v.dims[dim].stride * v.dims[dim].count : 1;
  r.dims.insert(r.dims.begin() + dim, ViewDim{stride, 1});
  return r;
}

View squeeze_dim(const View& v, int dim, bool on_chip) {
  check_dim(v, dim, "squeeze_dim");
  if (on_chip && dim == 0) fail("squeeze_dim: the partition dimension of an on-chip tensor cannot be removed");
  if (v.dims[dim].count != 1)
    fail("squeeze_dim: dimension " + std::to_string(dim) + " has size " + std::to_string(v.dims[dim].count) +
         ", not 1");
  View r = v;
  r.dims.erase(r.dims.begin() + dim);
  return r;
}

bool is_contiguous(const View& v) {
  int64_t expect = 1;
  for (size_t i = v.dims.size(); i-- > 0;) {
    if (v.dims[i].count == 1) continue;
    if (v.dims[i].stride != expect) return false;
    expect *= v.dims[i].count;
  }
  return true;
}

// Reshapes dims `old` into `shape` without copying (numpy's no-copy reshape); false if impossible.
static bool nocopy_reshape(const ViewDim* old_begin, const ViewDim* old_end, const std::vector<int64_t>& shape,
                           ViewDims& out) {
  std::vector<ViewDim> old;
  for (const ViewDim* d = old_begin; d != old_end; ++d)
    if (d->count != 1) old.push_back(*d);
  out.assign(shape.size(), ViewDim{0, 1});
  for (size_t i = 0; i < shape.size(); ++i) out[i].count = shape[i];
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  std::vector<size_t> newidx;  // indices of non-1 new dims
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) newidx.push_back(i);
  std::vector<int64_t> nd;
  for (size_t i : newidx) nd.push_back(shape[i]);
  std::vector<int64_t> ns(nd.size(), 0);
  while (ni < nd.size() && oi < old.size()) {
    int64_t np = nd[ni], op = old[oi].count;
    while (np != op) {
      if (np < op) {
        if (nj >= nd.size()) return false;
        np *= nd[nj++];
      } else {
        if (oj >= old.size()) return false;
        op *= old[oj++].count;
      }
    }
    for (size_t ok = oi; ok + 1 < oj; ++ok)
      if (old[ok].stride != old[ok + 1].count * old[ok + 1].stride) return false;
    ns[nj - 1] = old[oj - 1].stride;
    for (size_t nk = nj - 1; nk > ni; --nk) ns[nk - 1] = ns[nk] * nd[nk];
    ni = nj++;
    oi = oj++;
  }
  if (ni != nd.size() || oi != old.size()) return false;
  for (size_t k = 0; k < newidx.size(); ++k) out[newidx[k]].stride = ns[k];
  // size-1 dims: any stride; use the stride of the next dim times its count (or 1)
  for (size_t i = shape.size(); i-- > 0;)
    if (shape[i] == 1) out[i].stride = i + 1 < shape.size() ? out[i + 1].stride * out[i + 1].count : 1;
  return true;
}

// Resolves one -1 in `shape` so that it holds `total` elements; checks positivity and the element count.
// `what` names the operation and `from` what is reshaped, for messages.
static void resolve_shape(std::vector<int64_t>& shape, int64_t total, const std::string& what, const std::string& from) {
  const std::vector<int64_t> asked = shape;
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) fail(what + ": only one dimension can be -1");
      unknown = int(i);
    } else if (shape[i] < 0 || (shape[i] == 0 && total != 0)) {
      fail(what + ": dimensions must be positive, got " + shape_string(shape));
    } else {
      known *= shape[i];  // a 0 only for an empty view (numpy reshapes an empty array to any shape of 0 elements)
    }
  }
  if (unknown >= 0 && known == 0) fail("cannot reshape " + from + " into shape " + shape_string(asked));
  if (unknown >= 0 && total % known == 0) shape[unknown] = total / known;
  int64_t n = 1;
  for (auto s : shape) n *= s;
  if (n != total || (unknown >= 0 && total % known != 0))
    fail("cannot reshape " + from + " into shape " + shape_string(asked));
}

View reshape_view(const View& v, std::vector<int64_t> shape, bool on_chip) {
  resolve_shape(shape, v.num_elements(), "reshape", "tensor of shape " + shape_string(v.shape()));
  View r = v;
  if (on_chip && (shape.empty() || v.dims.empty() || shape[0] != v.dims[0].count))
    fail("reshape of an on-chip tensor must keep the partition dimension (" +
         std::to_string(v.dims.empty() ? 0 : v.dims[0].count) + "), got shape " + shape_string(shape));
  if (v.num_elements() == 0) {
    // An empty view (an empty slice) has no layout to keep: any shape of 0 elements, row-major strides (an
    // on-chip one keeps its partition dimension).
    r.dims.resize(shape.size());
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      r.dims[i] = ViewDim{stride, shape[i]};
      stride *= std::max<int64_t>(shape[i], 1);
    }
    if (on_chip) r.dims[0] = v.dims[0];
    return r;
  }
  if (on_chip) {
    std::vector<int64_t> free_shape(shape.begin() + 1, shape.end());
    ViewDims free_new;
    if (!nocopy_reshape(v.dims.begin() + 1, v.dims.end(), free_shape, free_new))
      fail("cannot reshape this view of shape " + shape_string(v.shape()) +
           " without copying (its free dimensions are not contiguous)");
    r.dims.assign(1, v.dims[0]);
    r.dims.insert(r.dims.end(), free_new.begin(), free_new.end());
    return r;
  }
  if (!nocopy_reshape(v.dims.begin(), v.dims.end(), shape, r.dims))
    fail("cannot reshape this view of shape " + shape_string(v.shape()) +
         " without copying (its dimensions are not contiguous)");
  return r;
}

View reshape_dim(const View& v, int dim, std::vector<int64_t> shape, bool on_chip) {
  check_dim(v, dim, "reshape_dim");
  if (on_chip && dim == 0) fail("reshape_dim: the partition dimension of an on-chip tensor cannot be reshaped");
  if (shape.empty()) fail("reshape_dim: the new shape must have at least one dimension");
  resolve_shape(shape, v.dims[dim].count, "reshape_dim",
                "dimension " + std::to_string(dim) + " of size " + std::to_string(v.dims[dim].count));
  ViewDims split;
  if (!nocopy_reshape(v.dims.begin() + dim, v.dims.begin() + dim + 1, shape, split))
    fail("reshape_dim: cannot split dimension " + std::to_string(dim));  // unreachable: one dim always splits
  View r = v;
  r.dims.erase(r.dims.begin() + dim);
  r.dims.insert(r.dims.begin() + dim, split.begin(), split.end());
  return r;
}

View flatten_dims(const View& v, int start, int end, bool on_chip) {
  check_dim(v, start, "flatten_dims");
  check_dim(v, end, "flatten_dims");
  if (end < start) fail("flatten_dims: end dimension " + std::to_string(end) + " comes before start " + std::to_string(start));
  if (on_chip && start == 0 && end > 0)
    fail("flatten_dims: the partition dimension of an on-chip tensor cannot be flattened");
  int64_t n = 1;
  for (int d = start; d <= end; ++d) n *= v.dims[d].count;
  ViewDims merged;
  if (!nocopy_reshape(v.dims.begin() + start, v.dims.begin() + end + 1, {n}, merged))
    fail("flatten_dims: dimensions " + std::to_string(start) + ".." + std::to_string(end) + " of " +
         shape_string(v.shape()) + " are not contiguous");
  View r = v;
  r.dims.erase(r.dims.begin() + start, r.dims.begin() + end + 1);
  r.dims.insert(r.dims.begin() + start, merged.begin(), merged.end());
  return r;
}

View reinterpret_view(const View& v, isa::DType dtype) {
  const int64_t from = isa::dtype_size(v.dtype), to = isa::dtype_size(dtype);
  View r = v;
  r.dtype = dtype;
  if (from == to) return r;
  const std::string what = "view(" + std::string(isa::dtype_name(dtype)) + ") of a " +
                           std::string(isa::dtype_name(v.dtype)) + " view";
  if (v.dims.empty()) fail(what + ": the view has no dimensions");
  const ViewDim& last = v.dims.back();
  if (last.stride != 1 && last.count != 1) fail(what + ": the last dimension must be contiguous (stride 1)");
  int64_t bytes = last.count * from;
  if (bytes % to != 0)
    fail(what + ": the last dimension (" + std::to_string(last.count) + " elements, " + std::to_string(bytes) +
         " bytes) is not a whole number of " + std::to_string(to) + "-byte elements");
  auto rescale = [&](int64_t x, const char* name) {
    if ((x * from) % to != 0)
      fail(what + ": the " + name + " (" + std::to_string(x) + " elements) is not a whole number of " +
           std::to_string(to) + "-byte elements");
    return x * from / to;
  };
  r.offset = rescale(v.offset, "offset");
  for (size_t i = 0; i + 1 < v.dims.size(); ++i) r.dims[i].stride = rescale(v.dims[i].stride, "stride of a dimension");
  r.dims.back() = ViewDim{1, bytes / to};
  return r;
}

View ap_view(const Tensor& base, int id, isa::DType dtype, const std::vector<ViewDim>& pattern, int64_t offset,
             std::string* out_of_bounds, int64_t view_partition_stride) {
  auto bounds = [&](const std::string& msg) {
    if (!out_of_bounds) fail(msg);
    if (out_of_bounds->empty()) *out_of_bounds = msg;
  };
  const int64_t base_bytes = base.num_elements() * isa::dtype_size(base.dtype);
  const int64_t es = isa::dtype_size(dtype);
  const std::string dt(isa::dtype_name(dtype));
  if (base_bytes % es != 0)
    fail("ap: the storage of '" + base.name + "' is not a whole number of " + dt + " elements");
  const int64_t total = base_bytes / es;
  if (pattern.empty()) fail("ap: the pattern must have at least one [stride, count] pair");
  if (pattern.size() > kMaxViewDims)
    fail("ap: the pattern has " + std::to_string(pattern.size()) + " dimensions; at most " +
         std::to_string(kMaxViewDims) + " are supported");
  for (auto& d : pattern)
    if (d.count <= 0) fail("ap: counts must be positive (got " + std::to_string(d.count) + ")");
  if (offset < 0) fail("ap: offset must not be negative (got " + std::to_string(offset) + ")");
  View v;
  v.tensor = id;
  v.dtype = dtype;
  v.offset = offset;
  v.dims.assign(pattern.begin(), pattern.end());
  // The element range the pattern touches.
  auto extent = [](const ViewDim* b, const ViewDim* e, int64_t* lo, int64_t* hi) {
    *lo = *hi = 0;
    for (; b != e; ++b) {
      int64_t span = 0;
      int64_t& side = b->stride < 0 ? *lo : *hi;
      if (__builtin_mul_overflow(b->stride, b->count - 1, &span) || __builtin_add_overflow(side, span, &side))
        fail("ap: the pattern's extent overflows (stride " + std::to_string(b->stride) + " x count " +
             std::to_string(b->count) + ")");
    }
  };
  auto reach = [](int64_t a, int64_t b) {  // a + b, or a located error past 64 bits
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) fail("ap: the pattern's extent overflows (offset " + std::to_string(a) + ")");
    return r;
  };
  int64_t lo, hi;
  if (is_on_chip(base.buffer)) {
    int64_t part_bytes = base_bytes / base.shape[0];
    if (part_bytes % es != 0) fail("ap: a partition of '" + base.name + "' is not a whole number of " + dt + " elements");
    const int64_t f = part_bytes / es;
    const int64_t vf = view_partition_stride;
    if (pattern[0].stride != f && (vf == 0 || pattern[0].stride != vf) && pattern[0].count > 1)
      fail("ap: the first [stride, count] pair is the partition dimension of '" + base.name +
           "' and its stride must be " + std::to_string(f) + " (the " + dt + " elements per partition" +
           (vf && vf != f ? ", or " + std::to_string(vf) + ", those of the view .ap() is called on" : std::string()) +
           "), got " + std::to_string(pattern[0].stride));
    v.dims[0].stride = f;
    const int64_t p0 = offset / f, in_part = offset % f;
    if (reach(p0, pattern[0].count) > base.shape[0])
      bounds("ap: partitions " + std::to_string(p0) + ".." + std::to_string(p0 + pattern[0].count - 1) +
           " are out of bounds for '" + base.name + "' with " + std::to_string(base.shape[0]) + " partitions");
    extent(v.dims.begin() + 1, v.dims.end(), &lo, &hi);
    if (reach(in_part, lo) < 0 || reach(in_part, hi) >= f)
      bounds("ap: the pattern reaches element " + std::to_string(in_part + (in_part + lo < 0 ? lo : hi)) +
           " of a partition of " + std::to_string(f) + " " + dt + " elements of '" + base.name + "'");
    return v;
  }
  extent(v.dims.begin(), v.dims.end(), &lo, &hi);
  if (reach(offset, lo) < 0 || reach(offset, hi) >= total)
    bounds("ap: the pattern reaches element " + std::to_string(offset + (offset + lo < 0 ? lo : hi)) + " of '" +
         base.name + "', which has " + std::to_string(total) + " " + dt + " elements");
  return v;
}

}  // namespace nkisim::ir
