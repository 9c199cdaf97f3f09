// test_rename.cpp - the live ranges of an automatically allocated SBUF tile rotate through two buffers
// (ir/rename.cpp): which accesses move to the second tensor, which stay, and the wait it removes from the program.
#include <doctest/doctest.h>

#include <algorithm>

#include "ir/lower.h"
#include "ir/passes.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Opcode;

namespace {

int tile(Kernel& k, const char* name, std::vector<int64_t> shape = {128, 64}, Buffer b = Buffer::sbuf) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.buffer = b;
  t.dtype = isa::DType::float32;
  return k.add_tensor(t);
}

int param(Kernel& k, const char* name) {
  const int t = tile(k, name, {128, 64}, Buffer::hbm);
  k.tensors[size_t(t)].role = Tensor::Role::Param;
  k.tensors[size_t(t)].param_index = int(k.params.size());
  k.params.push_back(t);
  return t;
}

Op op(Opcode oc, std::vector<View> views) {
  Op o;
  o.opcode = oc;
  for (size_t i = 0; i < views.size(); ++i) o.operands[i] = views[i];
  return o;
}

// Columns [0, 32) of a [128, 64] tile.
View half(const Kernel& k, int t) {
  View v = k.full_view(t);
  v.dims[1].count = 32;
  return v;
}

// t loaded from a, read into u; t loaded again from b, read into w (the pooling window's shape).
struct Reload {
  Kernel k;
  int a, b, t, u, w;
  Reload() {
    k.name = "reload";
    a = param(k, "a"), b = param(k, "b");
    t = tile(k, "t"), u = tile(k, "u"), w = tile(k, "w");
    k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(a)}));
    k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(u), k.full_view(t)}));
    k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(b)}));
    k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(w), k.full_view(t)}));
  }
};

}  // namespace

TEST_CASE("a tile loaded again whole gets a new tensor from the reload on") {
  Reload r;
  const std::optional<Kernel> out = split_live_ranges(r.k, 2);
  REQUIRE(out);
  REQUIRE(out->tensors.size() == r.k.tensors.size() + 1);
  const int t2 = int(out->tensors.size()) - 1;
  CHECK(out->tensors[size_t(t2)].name == "t");
  CHECK(out->ops[0].operands[0]->tensor == r.t);
  CHECK(out->ops[1].operands[1]->tensor == r.t);
  CHECK(out->ops[2].operands[0]->tensor == t2);
  CHECK(out->ops[3].operands[1]->tensor == t2);
  // In the program neither load waits for anything: the reload no longer overwrites what the Vector Engine reads.
  const isa::Program p = lower(r.k, *isa::find_target("trn2"));
  size_t dmas = 0;
  for (const auto& stream : p.streams)
    for (const isa::Instruction& ins : stream)
      if (ins.op == Opcode::dma_copy) {
        ++dmas;
        CHECK(ins.waits.empty());
      }
  CHECK(dmas == 2);
}

TEST_CASE("a partial reload followed by a read of the older elements keeps one tensor") {
  Reload r;
  r.k.ops[2].operands[0] = half(r.k, r.t);  // columns 32..63 still hold a's values, and the copy reads them
  r.k.ops[2].operands[1] = half(r.k, r.b);
  CHECK_FALSE(split_live_ranges(r.k, 2));
  // Read only what the partial reload wrote: a new range.
  r.k.ops[3].operands[0] = half(r.k, r.w);
  r.k.ops[3].operands[1] = half(r.k, r.t);
  const std::optional<Kernel> out = split_live_ranges(r.k, 2);
  REQUIRE(out);
  CHECK(out->ops[3].operands[1]->tensor != r.t);
}

TEST_CASE("a range read across joins the ranges between into one tensor") {
  // t = a; u = t; t[:, :32] = b (a kill); w[:, :32] = t[:, :32]; w = t (reads a's columns too): all of t is one.
  Reload r;
  r.k.ops[2].operands[0] = half(r.k, r.t);
  r.k.ops[2].operands[1] = half(r.k, r.b);
  r.k.ops[3].operands[0] = half(r.k, r.w);
  r.k.ops[3].operands[1] = half(r.k, r.t);
  r.k.ops.push_back(op(Opcode::tensor_copy, {r.k.full_view(r.w), r.k.full_view(r.t)}));
  // (w, written twice and never read, may be split; t may not)
  const std::optional<Kernel> out = split_live_ranges(r.k, 2);
  const Kernel& k = out ? *out : r.k;
  for (size_t i : {0, 1, 2, 3}) CHECK(k.ops[i].operands[i == 0 || i == 2 ? 0 : 1]->tensor == r.t);
  CHECK(k.ops[4].operands[1]->tensor == r.t);
}

TEST_CASE("what keeps its tile whole: a placed tile, PSUM, a transfer that may drop rows, a read-modify-write") {
  SUBCASE("address=") {
    Reload r;
    r.k.tensors[size_t(r.t)].address = std::pair<int64_t, int64_t>{0, 0};
    CHECK_FALSE(split_live_ranges(r.k, 2));
  }
  SUBCASE("oob_mode.skip: the dropped rows keep their old values") {
    Reload r;
    r.k.ops[2].params.oob_skip = true;
    CHECK_FALSE(split_live_ranges(r.k, 2));
  }
  SUBCASE("an instruction that reads what it writes") {
    Reload r;
    r.k.ops[2] = op(Opcode::tensor_tensor, {r.k.full_view(r.t), r.k.full_view(r.t), r.k.full_view(r.u)});
    CHECK_FALSE(split_live_ranges(r.k, 2));
  }
  SUBCASE("inside a dynamic loop") {
    Reload r;
    Op begin, end;
    begin.opcode = end.opcode = Opcode::branch;
    begin.ctl = Ctl::loop_begin;
    end.ctl = Ctl::loop_end;
    r.k.ops.insert(r.k.ops.begin() + 2, begin);
    r.k.ops.push_back(end);
    CHECK_FALSE(split_live_ranges(r.k, 2));
  }
}

TEST_CASE("live ranges rotate through the buffers: the third load reuses the first tensor and waits for its reader") {
  Reload r;
  const int c = param(r.k, "c"), x = tile(r.k, "x");
  r.k.ops.push_back(op(Opcode::dma_copy, {r.k.full_view(r.t), r.k.full_view(c)}));
  r.k.ops.push_back(op(Opcode::tensor_copy, {r.k.full_view(x), r.k.full_view(r.t)}));
  const std::optional<Kernel> two = split_live_ranges(r.k, 2);
  REQUIRE(two);
  REQUIRE(two->tensors.size() == r.k.tensors.size() + 1);
  CHECK(two->ops[2].operands[0]->tensor != r.t);
  CHECK(two->ops[4].operands[0]->tensor == r.t);
  CHECK(two->ops[5].operands[1]->tensor == r.t);
  const std::optional<Kernel> three = split_live_ranges(r.k, 3);
  REQUIRE(three);
  CHECK(three->tensors.size() == r.k.tensors.size() + 2);
  CHECK(three->ops[4].operands[0]->tensor != r.t);
  CHECK_FALSE(split_live_ranges(r.k, 1));
  // The program (trn2: tile_buffers 2): the second load waits for nothing, the third for the first copy (on the
  // Vector Engine's semaphore; and for the first load's queue, as both write the tensor). In program order, with
  // the copies on the Vector Engine (the list scheduler could give them to another engine).
  isa::TargetDesc trn2 = *isa::find_target("trn2");
  trn2.list_schedule = 0;
  const isa::Program p = lower(r.k, trn2);
  std::vector<std::vector<uint32_t>> waits;  // per load into SBUF: the semaphores it waits on
  for (const auto& stream : p.streams)
    for (const isa::Instruction& ins : stream)
      if (ins.op == Opcode::dma_copy && ins.operands[0].mem == isa::Memory::SBUF) {
        waits.emplace_back();
        for (const isa::SemWait& w : ins.waits) waits.back().push_back(w.sem);
      }
  std::sort(waits.begin(), waits.end(), [](auto& a, auto& b) { return a.size() < b.size(); });
  REQUIRE(waits.size() == 3);
  CHECK(waits[0].empty());
  CHECK(waits[1].empty());
  CHECK(std::count(waits[2].begin(), waits[2].end(), uint32_t(isa::Engine::Vector)) == 1);
}
