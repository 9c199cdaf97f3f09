// test_view.cpp - ir/view.h: full views, slicing, the on-chip vs HBM integer-indexing rules, reshape.
#include <doctest/doctest.h>

#include <functional>

#include "ir/view.h"
#include "isa/diagnostic.h"

using namespace nkisim::ir;

static Tensor tensor(std::vector<int64_t> shape, Buffer b) {
  Tensor t;
  t.shape = std::move(shape);
  t.buffer = b;
  return t;
}
static std::vector<std::pair<int64_t, int64_t>> dims(const View& v) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& d : v.dims) out.emplace_back(d.stride, d.count);
  return out;
}
using Dims = std::vector<std::pair<int64_t, int64_t>>;
static std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (nkisim::Error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("view: full view and slicing") {
  View v = full_view(tensor({128, 64}, Buffer::sbuf), 3);
  CHECK(v.tensor == 3);
  CHECK(dims(v) == Dims{{64, 128}, {1, 64}});
  View s = slice_dim(v, 1, 8, 24);  // the spec's example: [[64,128],[1,16]] offset 8
  CHECK(dims(s) == Dims{{64, 128}, {1, 16}});
  CHECK(s.offset == 8);
  View st = slice_dim(v, 1, 1, 64, 2);
  CHECK(dims(st) == Dims{{64, 128}, {2, 32}});
  CHECK(st.offset == 1);
  CHECK(error_of([&] { slice_dim(v, 1, 0, 65); }) == "slice [0:65] is out of bounds for dimension 1 of size 64");
  CHECK(error_of([&] { slice_dim(v, 1, 6, 5); }) == "slice [6:5] is reversed for dimension 1 of size 64");
  View e = slice_dim(v, 1, 5, 5);  // empty: a view of no elements (nl.ds(5, 0))
  CHECK(dims(e) == Dims{{64, 128}, {1, 0}});
  CHECK(e.offset == 5);
  CHECK(dims(slice_dim(v, 1, 64, 64)) == Dims{{64, 128}, {1, 0}});
  // An empty view reshapes to any shape of 0 elements (numpy's rule), with row-major strides; a -1 beside a 0 is
  // ambiguous; a non-empty view keeps positive dimensions.
  View h = full_view(tensor({128, 64}, Buffer::hbm), 0);
  View eh = slice_dim(h, 0, 8, 8);
  CHECK(reshape_view(eh, {0, 64}, false).shape() == std::vector<int64_t>{0, 64});
  CHECK(reshape_view(eh, {-1, 64}, false).shape() == std::vector<int64_t>{0, 64});
  CHECK(dims(reshape_view(eh, {2, 0, 32}, false)) == Dims{{32, 2}, {32, 0}, {1, 32}});
  CHECK(error_of([&] { reshape_view(eh, {-1, 0}, false); }) == "cannot reshape tensor of shape (0, 64) into shape (-1, 0)");
  CHECK(error_of([&] { reshape_view(h, {0, 64}, false); }) == "reshape: dimensions must be positive, got (0, 64)");
}

TEST_CASE("view: integer indexing on-chip keeps dims, HBM drops them") {
  View sb = full_view(tensor({128, 4, 64}, Buffer::sbuf), 0);
  CHECK(index_view(sb, true, {IndexKey::at(0)}).shape() == std::vector<int64_t>{1, 4, 64});
  CHECK(index_view(sb, true, {IndexKey::range({}, {}), IndexKey::at(1)}).shape() == std::vector<int64_t>{128, 64});
  View one = index_view(sb, true, {IndexKey::at(0), IndexKey::at(0), IndexKey::at(10)});
  CHECK(one.shape() == std::vector<int64_t>{1, 1});
  CHECK(one.offset == 10);
  View two = full_view(tensor({128, 64}, Buffer::sbuf), 0);
  CHECK(index_view(two, true, {IndexKey::range({}, {}), IndexKey::at(-1)}).shape() == std::vector<int64_t>{128, 1});
  View h = full_view(tensor({8, 16, 32}, Buffer::hbm), 1);
  CHECK(index_view(h, false, {IndexKey::at(2)}).shape() == std::vector<int64_t>{16, 32});
  View e = index_view(h, false, {IndexKey::at(1), IndexKey::at(2), IndexKey::at(3)});
  CHECK(e.shape() == std::vector<int64_t>{1});
  CHECK(e.offset == 1 * 512 + 2 * 32 + 3);
  View ds = index_view(h, false, {IndexKey::all(), IndexKey::ds(4, 8)});
  CHECK(dims(ds) == Dims{{512, 8}, {32, 16}, {1, 8}});
  CHECK(ds.offset == 4);
  CHECK(error_of([&] { index_view(h, false, {IndexKey::at(8)}); }) ==
        "index 8 is out of bounds for dimension 0 of size 8");
  CHECK(error_of([&] {
          index_view(h, false, {IndexKey::all(), IndexKey::all()});
        }) == "an index can only have a single ellipsis ('...')");
  CHECK(error_of([&] { index_view(sb, true, {IndexKey::range(0, 128, 2)}); }) ==
        "the partition dimension cannot be sliced with a step (got step 2)");
}

TEST_CASE("view: reshape, permute, broadcast, expand/squeeze") {
  View h = full_view(tensor({8, 16, 32}, Buffer::hbm), 1);
  View r = reshape_view(h, {128, -1}, false);
  CHECK(dims(r) == Dims{{32, 128}, {1, 32}});
  View sl = slice_dim(h, 2, 0, 16);  // non-contiguous in dim 2
  CHECK(!is_contiguous(sl));
  CHECK(dims(reshape_view(sl, {128, 16}, false)) == Dims{{32, 128}, {1, 16}});
  CHECK(error_of([&] { reshape_view(sl, {8, 256}, false); }).find("without copying") != std::string::npos);
  CHECK(error_of([&] {
          reshape_view(h, {3, -1}, false);
        }) == "cannot reshape tensor of shape (8, 16, 32) into shape (3, -1)");
  View sb = full_view(tensor({128, 4, 64}, Buffer::sbuf), 0);
  CHECK(reshape_view(sb, {128, 256}, true).shape() == std::vector<int64_t>{128, 256});
  CHECK(dims(permute_view(sb, {0, 2, 1}, true)) == Dims{{256, 128}, {1, 64}, {64, 4}});
  CHECK(error_of([&] {
          permute_view(sb, {1, 0, 2}, true);
        }) == "permute: the partition dimension of an on-chip tensor must stay first");
  View col = slice_dim(full_view(tensor({128, 64}, Buffer::sbuf), 0), 1, 0, 1);
  CHECK(dims(broadcast_dim(col, 1, 64, true)) == Dims{{64, 128}, {0, 64}});
  CHECK(expand_dim(sb, 1, true).shape() == std::vector<int64_t>{128, 1, 4, 64});
  CHECK(squeeze_dim(expand_dim(sb, 1, true), 1, true).shape() == std::vector<int64_t>{128, 4, 64});
  CHECK(shape_string({128}) == "(128,)");
}

TEST_CASE("view: reshape_dim, flatten_dims, reinterpret, ap") {
  View h = full_view(tensor({8, 16, 32}, Buffer::hbm), 1);
  CHECK(dims(reshape_dim(h, 1, {4, -1}, false)) == Dims{{512, 8}, {128, 4}, {32, 4}, {1, 32}});
  CHECK(error_of([&] { reshape_dim(h, 1, {5, -1}, false); }) == "cannot reshape dimension 1 of size 16 into shape (5, -1)");
  View sb = full_view(tensor({128, 64}, Buffer::sbuf), 0);
  CHECK(error_of([&] { reshape_dim(sb, 0, {2, 64}, true); }) ==
        "reshape_dim: the partition dimension of an on-chip tensor cannot be reshaped");
  CHECK(dims(flatten_dims(h, 0, 1, false)) == Dims{{32, 128}, {1, 32}});
  CHECK(dims(flatten_dims(h, 1, 2, false)) == Dims{{512, 8}, {1, 512}});
  CHECK(error_of([&] { flatten_dims(slice_dim(h, 2, 0, 16), 1, 2, false); }) ==
        "flatten_dims: dimensions 1..2 of (8, 16, 16) are not contiguous");
  // fp32 (128, 64) seen as bf16: (128, 128), strides doubled
  Tensor t32 = tensor({128, 64}, Buffer::sbuf);
  View r = reinterpret_view(full_view(t32, 0), nkisim::isa::DType::bfloat16);
  CHECK(dims(r) == Dims{{128, 128}, {1, 128}});
  View back = reinterpret_view(slice_dim(r, 1, 2, 10), nkisim::isa::DType::float32);
  CHECK(dims(back) == Dims{{64, 128}, {1, 4}});
  CHECK(back.offset == 1);
  CHECK(error_of([&] { reinterpret_view(slice_dim(r, 1, 1, 9), nkisim::isa::DType::float32); }) ==
        "view(float32) of a bfloat16 view: the offset (1 elements) is not a whole number of 4-byte elements");
  // ap: the spec's slice example and partition rules
  CHECK(dims(ap_view(t32, 0, nkisim::isa::DType::float32, {{64, 128}, {1, 16}}, 8)) == Dims{{64, 128}, {1, 16}});
  CHECK(error_of([&] { ap_view(t32, 0, nkisim::isa::DType::float32, {{32, 128}, {1, 16}}, 0); }).find(
            "its stride must be 64") != std::string::npos);
  CHECK(error_of([&] { ap_view(t32, 0, nkisim::isa::DType::float32, {{64, 64}, {1, 65}}, 0); }) ==
        "ap: the pattern reaches element 64 of a partition of 64 float32 elements of ''");
  Tensor hb = tensor({64, 32}, Buffer::hbm);
  CHECK(dims(ap_view(hb, 2, nkisim::isa::DType::float32, {{1, 32}, {32, 64}}, 0)) == Dims{{1, 32}, {32, 64}});
  CHECK(error_of([&] { ap_view(hb, 2, nkisim::isa::DType::float32, {{64, 33}}, 0); }) ==
        "ap: the pattern reaches element 2048 of '', which has 2048 float32 elements");
  // 64-bit overflow is a located error, not undefined behaviour (fuzzing, session 19)
  const int64_t big = int64_t(1) << 62, max = INT64_MAX;
  CHECK(error_of([&] { ap_view(hb, 2, nkisim::isa::DType::float32, {{1, 32}, {big, 4}}, 0); }) ==
        "ap: the pattern's extent overflows (stride 4611686018427387904 x count 4)");
  CHECK(error_of([&] { ap_view(hb, 2, nkisim::isa::DType::float32, {{1, 4}}, max); }) ==
        "ap: the pattern's extent overflows (offset 9223372036854775807)");
  CHECK(error_of([&] { ap_view(t32, 0, nkisim::isa::DType::float32, {{64, max}, {1, 4}}, 64); }) ==
        "ap: the pattern's extent overflows (offset 1)");
  // views keep at most kMaxViewDims dims inline
  CHECK(error_of([&] { reshape_view(h, {2, 2, 2, 2, 2, 2, 64}, false); }) ==
        "a tensor view has at most 6 dimensions (7 needed)");
}
