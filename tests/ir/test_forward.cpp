// test_forward.cpp - copies out of single-use temporaries forwarded into their producer, and fills that are next
// overwritten whole dropped (ir/forward.cpp): exact op lists, and every case that must stay as it is.
#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>

#include "ir/passes.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Opcode;

namespace {

// PSUM bytes per partition in one bank (trn2).
const int64_t kBank = int64_t(isa::find_target("trn2")->psum_partition_bytes / isa::find_target("trn2")->psum_banks);

int tile(Kernel& k, const char* name, std::vector<int64_t> shape = {128, 64}, Buffer b = Buffer::sbuf,
         isa::DType dt = isa::DType::float32) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.buffer = b;
  t.dtype = dt;
  return k.add_tensor(t);
}

Op op(Opcode oc, std::vector<View> views) {
  Op o;
  o.opcode = oc;
  for (size_t i = 0; i < views.size(); ++i) o.operands[i] = views[i];
  return o;
}

// Columns [c, c + 64) of a [128, 256] tile: the slice `res[:, c:c+64]` of a legacy assignment.
View columns(const Kernel& k, int t, int64_t c) {
  View v = k.full_view(t);
  v.offset = c;
  v.dims = ViewDims{ViewDim{256, 128}, ViewDim{1, 64}};
  return v;
}

std::vector<Opcode> opcodes(const Kernel& k) {
  std::vector<Opcode> v;
  for (const Op& o : k.ops) v.push_back(o.opcode);
  return v;
}

// x, y inputs (filled, then read); t = x + y; res[:, 64:128] = copy(t).
struct Copy {
  Kernel k;
  int x, y, t, res;
  Copy(isa::DType tdt = isa::DType::float32) {
    x = tile(k, "x"), y = tile(k, "y"), t = tile(k, "t", {128, 64}, Buffer::sbuf, tdt);
    res = tile(k, "res", {128, 256});
    k.ops.push_back(op(Opcode::memset, {k.full_view(x)}));
    k.ops.push_back(op(Opcode::memset, {k.full_view(y)}));
    k.ops.push_back(op(Opcode::tensor_tensor, {k.full_view(t), k.full_view(x), k.full_view(y)}));
  }
  void copy_out() {
    View src = k.full_view(t);
    k.ops.push_back(op(Opcode::tensor_copy, {columns(k, res, 64), src}));
  }
};

}  // namespace

TEST_CASE("forward: a copy out of a one-use temporary becomes its producer's destination") {
  Copy c;
  c.copy_out();
  auto out = forward_copies(c.k, kBank);
  REQUIRE(out);
  CHECK(opcodes(*out) == std::vector<Opcode>{Opcode::memset, Opcode::memset, Opcode::tensor_tensor});
  const View& dst = *out->ops[2].operands[0];
  CHECK(dst.tensor == c.res);
  CHECK(dst.offset == 64);
  CHECK(dst.dims == columns(c.k, c.res, 64).dims);
  CHECK(out->ops[2].operands[1]->tensor == c.x);
}

TEST_CASE("forward: a copy of a copy goes too (one step a round)") {
  Copy c;
  int u = tile(c.k, "u");
  c.k.ops.push_back(op(Opcode::tensor_copy, {c.k.full_view(u), c.k.full_view(c.t)}));
  c.k.ops.push_back(op(Opcode::tensor_copy, {columns(c.k, c.res, 128), c.k.full_view(u)}));
  auto out = forward_copies(c.k, kBank);
  REQUIRE(out);
  REQUIRE(out->ops.size() == 3);
  CHECK(out->ops[2].operands[0]->tensor == c.res);
  CHECK(out->ops[2].operands[0]->offset == 128);
}

TEST_CASE("forward: acc[...] = acc[...] + x computes in place; a [P, 1] operand from the destination keeps the copy") {
  Copy c;
  c.k.ops[2].operands[1] = columns(c.k, c.res, 64);  // t = res[:, 64:128] + y
  c.copy_out();                                      // res[:, 64:128] = t
  auto out = forward_copies(c.k, kBank);
  REQUIRE(out);
  REQUIRE(out->ops.size() == 3);
  CHECK(out->ops[2].operands[0]->tensor == c.res);
  CHECK(out->ops[2].operands[1]->tensor == c.res);
  CHECK(out->ops[2].operands[1]->dims == out->ops[2].operands[0]->dims);

  Copy d;  // t = x * res[:, 0:1] (a per-partition scalar from the destination's tile)
  Op ts = op(Opcode::tensor_scalar, {d.k.full_view(d.t), d.k.full_view(d.x)});
  View col = d.k.full_view(d.res);
  col.dims = ViewDims{ViewDim{256, 128}, ViewDim{1, 1}};
  ts.operands[2] = col;
  d.k.ops[2] = ts;
  d.copy_out();
  CHECK(!forward_copies(d.k, kBank));
}

TEST_CASE("forward: copies that must stay") {
  SUBCASE("the temporary is read again") {
    Copy c;
    c.copy_out();
    int z = tile(c.k, "z");
    c.k.ops.push_back(op(Opcode::tensor_tensor, {c.k.full_view(z), c.k.full_view(c.t), c.k.full_view(c.x)}));
    CHECK(!forward_copies(c.k, kBank));
  }
  SUBCASE("the copy converts (bf16 temporary into fp32): one rounding instead of two would change values") {
    Copy c(isa::DType::bfloat16);
    c.copy_out();
    CHECK(!forward_copies(c.k, kBank));
  }
  SUBCASE("the destination is read between the producer and the copy") {
    Copy c;
    int z = tile(c.k, "z");
    c.k.ops.push_back(op(Opcode::tensor_copy, {c.k.full_view(z), columns(c.k, c.res, 64)}));
    c.copy_out();
    auto out = forward_copies(c.k, kBank);
    CHECK((!out || out->ops.size() == c.k.ops.size()));
  }
  SUBCASE("a control op between them") {
    Copy c;
    Op ctl;
    ctl.opcode = Opcode::branch;
    ctl.ctl = Ctl::loop_begin;
    c.k.ops.push_back(ctl);
    c.copy_out();
    CHECK(!forward_copies(c.k, kBank));
  }
  SUBCASE("the producer reads the destination") {
    Copy c;
    c.k.ops[2].operands[2] = columns(c.k, c.res, 0);
    c.copy_out();
    CHECK(!forward_copies(c.k, kBank));
  }
  SUBCASE("a destination in PSUM") {
    Copy c;
    int p = tile(c.k, "p", {128, 64}, Buffer::psum);
    c.k.ops.push_back(op(Opcode::tensor_copy, {c.k.full_view(p), c.k.full_view(c.t)}));
    CHECK(!forward_copies(c.k, kBank));
  }
  SUBCASE("a placed temporary (address=)") {
    Copy c;
    c.k.tensors[size_t(c.t)].address = std::pair<int64_t, int64_t>{0, 0};
    c.copy_out();
    CHECK(!forward_copies(c.k, kBank));
  }
}

TEST_CASE("forward: a PSUM fill the next matmul overwrites is dropped; one it accumulates onto stays") {
  for (bool accumulate : {false, true}) {
    CAPTURE(accumulate);
    Kernel k;
    int w = tile(k, "w", {128, 128}), m = tile(k, "m", {128, 64});
    int ps = tile(k, "ps", {128, 64}, Buffer::psum);
    k.ops.push_back(op(Opcode::memset, {k.full_view(w)}));
    k.ops.push_back(op(Opcode::memset, {k.full_view(m)}));
    k.ops.push_back(op(Opcode::memset, {k.full_view(ps)}));
    k.ops.push_back(op(Opcode::load_stationary, {k.full_view(w)}));
    Op mm = op(Opcode::multiply_moving, {k.full_view(ps), k.full_view(m)});
    mm.params.accumulate = accumulate;
    k.ops.push_back(mm);
    auto out = forward_copies(k, kBank);
    if (accumulate) {
      CHECK(!out);
    } else {
      REQUIRE(out);
      CHECK(opcodes(*out) ==
            std::vector<Opcode>{Opcode::memset, Opcode::memset, Opcode::load_stationary, Opcode::multiply_moving});
    }
  }
}

TEST_CASE("forward: a fill that is read, or only partly overwritten, stays") {
  Kernel k;
  int a = tile(k, "a", {128, 256}), b = tile(k, "b", {128, 64});
  k.ops.push_back(op(Opcode::memset, {k.full_view(a)}));
  k.ops.push_back(op(Opcode::memset, {k.full_view(b)}));
  k.ops.push_back(op(Opcode::tensor_copy, {columns(k, a, 0), k.full_view(b)}));  // a partly overwritten
  k.ops.push_back(op(Opcode::tensor_tensor, {k.full_view(b), k.full_view(b), k.full_view(b)}));  // b read
  auto out = forward_copies(k, kBank);
  CHECK(!out);
}

// tensor_scalar_reduce also writes its row reduction (reduce_res, slot 3) and runs an accumulator command: its
// slot-0 result is still forwarded; with the reduction in the destination's own tile, the copy stays.
TEST_CASE("forward: a producer that also writes a reduce_res is forwarded unless that lands in the destination's tile") {
  for (bool same_tile : {false, true}) {
    CAPTURE(same_tile);
    Copy c;
    const int m = tile(c.k, "m", {128, 1});
    View col = c.k.full_view(c.res);  // res[:, 0:1]
    col.dims = ViewDims{ViewDim{256, 128}, ViewDim{1, 1}};
    Op tsr = op(Opcode::tensor_scalar_reduce, {c.k.full_view(c.t), c.k.full_view(c.x)});
    tsr.operands[3] = same_tile ? col : c.k.full_view(m);
    tsr.params.op0 = isa::AluOp::multiply;
    tsr.params.reduce_op = isa::AluOp::maximum;
    tsr.params.reduce_cmd = isa::ReduceCmd::reset_reduce;
    c.k.ops[2] = tsr;
    c.copy_out();
    auto out = forward_copies(c.k, kBank);
    if (same_tile) {
      CHECK((!out || out->ops.size() == 4));
      continue;
    }
    REQUIRE(out);
    REQUIRE(out->ops.size() == 3);
    CHECK(out->ops[2].opcode == Opcode::tensor_scalar_reduce);
    CHECK(out->ops[2].operands[0]->tensor == c.res);
    CHECK(out->ops[2].operands[3]->tensor == m);
  }
}

// A float32 temporary copied into a bfloat16 slice: an element-wise producer (REUSE) writes the slice itself, rounding
// once as the copy did; a reduction, an integer destination or a narrower temporary keep the copy.
TEST_CASE("forward: a converting copy out of a float32 temporary folds into an element-wise producer") {
  auto build = [](Opcode producer, isa::DType temp, isa::DType res) {
    Copy c(temp);
    c.k.tensors[size_t(c.res)].dtype = res;
    if (producer == Opcode::tensor_reduce) {
      c.k.ops[2] = op(Opcode::tensor_reduce, {c.k.full_view(c.t), c.k.full_view(c.x)});
      c.k.ops[2].params.op0 = isa::AluOp::add;
    }
    View dst = columns(c.k, c.res, 64);
    dst.dtype = res;
    View src = c.k.full_view(c.t);
    c.k.ops.push_back(op(Opcode::tensor_copy, {dst, src}));
    return c;
  };
  {
    Copy c = build(Opcode::tensor_tensor, isa::DType::float32, isa::DType::bfloat16);
    auto out = forward_copies(c.k, kBank);
    REQUIRE(out);
    REQUIRE(out->ops.size() == 3);
    CHECK(out->ops[2].operands[0]->tensor == c.res);
    CHECK(out->ops[2].operands[0]->dtype == isa::DType::bfloat16);
  }
  for (auto [producer, temp, res] : {std::tuple{Opcode::tensor_reduce, isa::DType::float32, isa::DType::bfloat16},
                                     std::tuple{Opcode::tensor_tensor, isa::DType::float32, isa::DType::int32},
                                     std::tuple{Opcode::tensor_tensor, isa::DType::bfloat16, isa::DType::float32}}) {
    CAPTURE(int(producer));
    CAPTURE(int(temp));
    CAPTURE(int(res));
    Copy c = build(producer, temp, res);
    auto out = forward_copies(c.k, kBank);
    CHECK((!out || out->ops.size() == 4));
  }
}

// `p[:, c:c+128] = nisa.nc_matmul(a, ident, is_transpose=True)`: the front end transposes into a PSUM temporary and
// copies it into p's slice; the Neuron compiler has the Tensor Engine write the slice. Not when the matmul
// accumulates, or when the slice crosses a PSUM bank (a matmul's output stays in one).
TEST_CASE("forward: a matmul's PSUM temporary copied into a PSUM slice becomes the matmul's destination") {
  auto kernel = [](isa::DType pdt, int64_t columns_at, bool accumulate) {
    Kernel k;
    const int a = tile(k, "a", {128, 128}), id = tile(k, "ident", {128, 128});
    const int tmp = tile(k, "tmp", {128, 128}, Buffer::psum, pdt), p = tile(k, "p", {128, 1024}, Buffer::psum, pdt);
    k.ops.push_back(op(Opcode::memset, {k.full_view(a)}));
    k.ops.push_back(op(Opcode::memset, {k.full_view(id)}));
    k.ops.push_back(op(Opcode::load_stationary, {View{}, k.full_view(id)}));
    k.ops.back().operands[0].reset();
    Op mm = op(Opcode::multiply_moving, {k.full_view(tmp), k.full_view(a)});
    mm.params.accumulate = accumulate;
    k.ops.push_back(mm);
    View slice = k.full_view(p);
    slice.offset = columns_at;
    slice.dims = ViewDims{ViewDim{1024, 128}, ViewDim{1, 128}};
    k.ops.push_back(op(Opcode::tensor_copy, {slice, k.full_view(tmp)}));
    return std::make_tuple(k, p, columns_at);
  };
  {
    auto [k, p, at] = kernel(isa::DType::float32, 128, false);
    auto out = forward_copies(k, kBank);
    REQUIRE(out);
    CHECK(opcodes(*out) == std::vector<Opcode>{Opcode::memset, Opcode::memset, Opcode::load_stationary,
                                               Opcode::multiply_moving});
    CHECK(out->ops[3].operands[0]->tensor == p);
    CHECK(out->ops[3].operands[0]->offset == at);
  }
  // An accumulating matmul adds onto what its destination holds: the copy stays.
  CHECK(!forward_copies(std::get<0>(kernel(isa::DType::float32, 128, true)), kBank));
  // fp32 columns 448..575 cross the 2 KiB bank boundary at column 512: the copy stays.
  CHECK(!forward_copies(std::get<0>(kernel(isa::DType::float32, 448, false)), kBank));
  // bf16 columns 448..575 are bytes 896..1151 of the first bank: forwarded.
  CHECK(forward_copies(std::get<0>(kernel(isa::DType::bfloat16, 448, false)), kBank));
}

// A memset the front end made only to end a folded PSUM block's accumulation group (frontend/nl_blocks.cpp) goes
// when the next ops overwrite all of it before anything reads the tensor; a read first, a part never overwritten,
// or a user's own memset keeps it.
TEST_CASE("forward: a group-ending memset that later writes cover before any read is dropped") {
  auto kernel = [](int pieces, bool read_first, bool group_end) {
    Kernel k;
    const int p = tile(k, "p", {128, 512}, Buffer::psum), s = tile(k, "s", {128, 128}), o = tile(k, "o", {128, 512});
    k.tensors[size_t(p)].address = std::pair<int64_t, int64_t>{0, 0};  // placed, as mod_alloc blocks are
    k.ops.push_back(op(Opcode::memset, {k.full_view(s)}));
    Op fill = op(Opcode::memset, {k.full_view(p)});
    fill.group_end = group_end;
    k.ops.push_back(fill);
    if (read_first) k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(o), k.full_view(p)}));
    for (int j = 0; j < pieces; ++j) {
      View slice = k.full_view(p);
      slice.offset = 128 * j;
      slice.dims = ViewDims{ViewDim{512, 128}, ViewDim{1, 128}};
      k.ops.push_back(op(Opcode::tensor_copy, {slice, k.full_view(s)}));
    }
    k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(o), k.full_view(p)}));
    return k;
  };
  auto out = forward_copies(kernel(4, false, true), kBank);
  REQUIRE(out);
  CHECK(out->ops.size() == 6);  // the memset of s, four writes, the read
  CHECK(out->ops[0].operands[0]->tensor == 1);
  const auto kept = [&](const Kernel& k) {
    const std::optional<Kernel> r = forward_copies(k, kBank);
    const Kernel& x = r ? *r : k;
    return std::count_if(x.ops.begin(), x.ops.end(), [](const Op& o) { return o.opcode == Opcode::memset; }) == 2;
  };
  CHECK(kept(kernel(3, false, true)));  // columns 384..511 keep their zeros
  CHECK(kept(kernel(4, true, true)));   // read before it is overwritten
  CHECK(kept(kernel(4, false, false))); // the kernel's own memset of a placed tile
}

TEST_CASE("forward: a load into a temporary copied into a slice becomes a load into the slice, at any partition") {
  // buf[32:96, 64:128] = nl.load(x[...]): dma_copy x -> t, tensor_copy t -> the slice
  Kernel k;
  const int x = tile(k, "x", {64, 64}, Buffer::hbm), t = tile(k, "t", {64, 64});
  const int buf = tile(k, "buf", {128, 256});
  View slice = columns(k, buf, 64);
  slice.offset += 32 * 256;
  slice.dims[0].count = 64;
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(x)}));
  k.ops.push_back(op(Opcode::tensor_copy, {slice, k.full_view(t)}));
  auto out = forward_copies(k, kBank);
  REQUIRE(out);
  CHECK(opcodes(*out) == std::vector<Opcode>{Opcode::dma_copy});
  CHECK(out->ops[0].operands[0]->tensor == buf);
  CHECK(out->ops[0].operands[0]->offset == 32 * 256 + 64);

  // oob_mode=skip leaves rows of the temporary unwritten, which the copy carried: it stays
  k.ops[0].params.oob_skip = true;
  CHECK_FALSE(forward_copies(k, kBank));
  k.ops[0].params.oob_skip = false;
  // a converting copy (a DMA rounds differently from an engine's fp32 path): it stays
  k.tensors[size_t(t)].dtype = isa::DType::bfloat16;
  k.tensors[size_t(x)].dtype = isa::DType::bfloat16;
  k.ops[0].operands[0]->dtype = k.ops[0].operands[1]->dtype = isa::DType::bfloat16;
  k.ops[1].operands[1]->dtype = isa::DType::bfloat16;
  CHECK_FALSE(forward_copies(k, kBank));
}

TEST_CASE("forward: a masked producer's part of its temporary, copied as it is, is written into the slice") {
  // buf[0:128, 64:112] = nl.load(x[...], mask=(ix < 48)): the load fills columns [0, 48) of a [128, 64] temporary,
  // the copy reads those columns only
  Kernel k;
  const int x = tile(k, "x", {128, 64}, Buffer::hbm), t = tile(k, "t", {128, 64});
  const int buf = tile(k, "buf", {128, 256});
  View part = k.full_view(t), from = k.full_view(x), slice = columns(k, buf, 64);
  part.dims[1].count = from.dims[1].count = slice.dims[1].count = 48;
  k.ops.push_back(op(Opcode::dma_copy, {part, from}));
  k.ops.push_back(op(Opcode::tensor_copy, {slice, part}));
  auto out = forward_copies(k, kBank);
  REQUIRE(out);
  CHECK(opcodes(*out) == std::vector<Opcode>{Opcode::dma_copy});
  CHECK(out->ops[0].operands[0]->tensor == buf);
  CHECK(out->ops[0].operands[0]->dims[1].count == 48);
  // a copy of more than was written (the rest of the temporary is never written): it stays
  View more = part, wider = slice;
  more.dims[1].count = wider.dims[1].count = 64;
  k.ops[1] = op(Opcode::tensor_copy, {wider, more});
  CHECK_FALSE(forward_copies(k, kBank));
}
