// test_regions_match.cpp - the straight-line fast path and the region emitter of dynamic loops share one analysis
// (ir/deps.h): a loop-free kernel gives the same program on both (ir::SemaphorePath). Every e2e, example and
// conformance kernel is compared the same way by regions-match (tests/ir/tools, run from tests/functional_rerun.py).
#include <doctest/doctest.h>

#include "ir/lower.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Engine;
using isa::Opcode;

namespace {

int tensor(Kernel& k, const char* name, std::vector<int64_t> shape, Buffer b) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.buffer = b;
  t.dtype = isa::DType::float32;
  t.loc = SourceLoc{"k.py", 1, 5};
  const int id = k.add_tensor(t);
  if (b == Buffer::hbm) {
    k.tensors[size_t(id)].role = Tensor::Role::Param;
    k.tensors[size_t(id)].param_index = int(k.params.size());
    k.params.push_back(id);
  }
  return id;
}

Op op(Opcode oc, std::initializer_list<View> ops, int line, std::optional<Engine> engine = std::nullopt) {
  Op o;
  o.opcode = oc;
  size_t i = 0;
  for (const View& v : ops) o.operands[i++] = v;
  o.loc = SourceLoc{"k.py", uint32_t(line), 9};
  o.engine = engine;
  return o;
}

std::string both_paths(const Kernel& k, const char* target) {
  const isa::TargetDesc t = *isa::find_target(target);
  const std::string fast = isa::print_asm(lower(k, t));
  CHECK(fast == isa::print_asm(lower(k, t, nullptr, nullptr, SemaphorePath::regions)));
  return fast;
}

}  // namespace

// DMAs whose trigger engine the producer rule chooses and DMAs with engine= take their engine's queues in program
// order on both paths, and the waits across engines and queues are the same.
TEST_CASE("a loop-free kernel gives the same program on the straight-line path and the region emitter") {
  Kernel k;
  k.name = "mixed_triggers";
  const int a = tensor(k, "a", {128, 64}, Buffer::hbm), b = tensor(k, "b", {128, 64}, Buffer::hbm);
  const int c = tensor(k, "c", {128, 64}, Buffer::hbm), d = tensor(k, "d", {128, 64}, Buffer::hbm);
  const int t = tensor(k, "t", {128, 64}, Buffer::sbuf), u = tensor(k, "u", {128, 64}, Buffer::sbuf);
  const int t2 = tensor(k, "t2", {128, 64}, Buffer::sbuf), u2 = tensor(k, "u2", {128, 64}, Buffer::sbuf);
  const int ps = tensor(k, "ps", {64, 128}, Buffer::psum);
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(a)}, 1));                   // Sync: an input
  k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(u), k.full_view(t)}, 2, Engine::Vector));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(c), k.full_view(u)}, 3));                   // Vector: producer
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t2), k.full_view(b)}, 4, Engine::Vector));  // Vector: engine=
  k.ops.push_back(op(Opcode::activation, {k.full_view(u2), k.full_view(t2)}, 5, Engine::Scalar));
  k.ops.push_back(op(Opcode::nc_transpose_pe, {k.full_view(ps), k.full_view(u2)}, 6));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(d), k.full_view(u2)}, 7));                  // Scalar: producer
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(u2), k.full_view(a)}, 8));  // overwrites what the PE reads
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(b)}, 9, Engine::GpSimd));
  for (const char* target : {"trn1", "trn2", "trn3"}) {
    CAPTURE(target);
    const std::string asm_text = both_paths(k, target);
    CHECK(asm_text.find("dma_copy") != std::string::npos);
  }
  // trn1 (the producer rule): the Vector Engine triggers lines 3 and 4 on consecutive queues of its group, in
  // program order (the list scheduler off: it would move line 4's load ahead of the copy).
  isa::TargetDesc trn1 = *isa::find_target("trn1");
  trn1.list_schedule = 0;
  const isa::Program p = lower(k, trn1);
  const auto& vec = p.streams[size_t(Engine::Vector)];
  REQUIRE(vec.size() == 3);
  CHECK(vec[1].op == Opcode::dma_copy);
  CHECK(vec[2].op == Opcode::dma_copy);
  CHECK(vec[2].params.dma_queue == vec[1].params.dma_queue + 1);
  CHECK(p.streams[size_t(Engine::Sync)].size() == 2);  // lines 1 and 8 (an input: no engine produced it)

  // engine=sync is kept although Vector produced the data (the front end sets it for dge_mode=hwdge, which only
  // Sync or Scalar may trigger), on both paths.
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(d), k.full_view(u)}, 10, Engine::Sync));
  both_paths(k, "trn2");
  const isa::Program p2 = lower(k, trn1);
  CHECK(p2.streams[size_t(Engine::Vector)].size() == 3);
  REQUIRE(p2.streams[size_t(Engine::Sync)].size() == 3);
  CHECK(p2.streams[size_t(Engine::Sync)][2].op == Opcode::dma_copy);
}
