// test_dma_order.cpp - what orders a DMA transfer in the emitted program: the engine that triggers it, its
// queue's FIFO and the semaphores the back end inserts (ir/deps.h, trigger_orders_dma).
#include <doctest/doctest.h>

#include "ir/lower.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::DType;
using isa::Engine;
using isa::Opcode;

namespace {

// Program order: these tests are about the emitter's trigger and queue choice; the list scheduler has its own
// (test_list_schedule.cpp).
const isa::TargetDesc& trn2() {
  static isa::TargetDesc t = [] {
    isa::TargetDesc d = *isa::find_target("trn2");
    d.list_schedule = 0;
    return d;
  }();
  return t;
}

int tensor(Kernel& k, const char* name, std::vector<int64_t> shape, Buffer b) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.buffer = b;
  t.dtype = DType::float32;
  t.loc = SourceLoc{"k.py", 1, 5};
  return k.add_tensor(t);
}

int param(Kernel& k, const char* name, std::vector<int64_t> shape) {
  const int t = tensor(k, name, std::move(shape), Buffer::hbm);
  k.tensors[size_t(t)].role = Tensor::Role::Param;
  k.tensors[size_t(t)].param_index = int(k.params.size());
  k.params.push_back(t);
  return t;
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

bool waits_for(const isa::Instruction& ins, uint32_t sem, uint32_t value) {
  for (const isa::SemWait& w : ins.waits)
    if (w.sem == sem && w.value >= value) return true;
  return false;
}

bool signals(const isa::Instruction& ins, uint32_t sem) {
  for (const isa::SemUpdate& u : ins.updates)
    if (u.sem == sem) return true;
  return false;
}

}  // namespace

// The Tensor Engine issues its next instruction once the previous one has started, so a transfer it triggered
// could land while a transpose still reads the row it overwrites (what moe_cte's token indices went through).
TEST_CASE("a DMA that overwrites what a Tensor Engine instruction reads is not triggered by the Tensor Engine") {
  Kernel k;
  k.name = "ids";
  const int x = param(k, "x", {2, 128});
  const int row = tensor(k, "row", {1, 128}, Buffer::sbuf);
  const int ps0 = tensor(k, "ps0", {128, 1}, Buffer::psum), ps1 = tensor(k, "ps1", {128, 1}, Buffer::psum);
  k.tensors[size_t(row)].address = std::pair<int64_t, int64_t>{0, 0};  // placed: the refill reuses its memory
  View x0 = k.full_view(x), x1 = k.full_view(x);
  x0.dims[0].count = x1.dims[0].count = 1;
  x1.offset = 128;
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(row), x0}, 1));
  k.ops.push_back(op(Opcode::nc_transpose_pe, {k.full_view(ps0), k.full_view(row)}, 2));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(row), x1}, 3));  // write-after-read of the transpose
  k.ops.push_back(op(Opcode::nc_transpose_pe, {k.full_view(ps1), k.full_view(row)}, 4));
  isa::Program p = lower(k, trn2());
  const auto& te = p.streams[size_t(Engine::Tensor)];
  REQUIRE(te.size() == 2);  // the transposes only
  CHECK(te[0].op == Opcode::nc_transpose_pe);
  CHECK(te[1].op == Opcode::nc_transpose_pe);
  CHECK(signals(te[0], uint32_t(Engine::Tensor)));
  const auto& sync = p.streams[size_t(Engine::Sync)];
  REQUIRE(sync.size() == 2);
  CHECK(sync[1].op == Opcode::dma_copy);
  CHECK(waits_for(sync[1], uint32_t(Engine::Tensor), 1));  // the first transpose has read the row
  // An explicit engine=tensor trigger is honoured, and then it waits for the transpose on its own engine.
  k.ops[2].engine = Engine::Tensor;
  p = lower(k, trn2());
  const auto& te2 = p.streams[size_t(Engine::Tensor)];
  REQUIRE(te2.size() == 3);
  CHECK(te2[1].op == Opcode::dma_copy);
  CHECK(waits_for(te2[1], uint32_t(Engine::Tensor), 1));
}

// A queue's semaphore counts its transfers in program order; the queue completes them in trigger order. When
// two engines trigger onto one queue, the later one in program order waits for the earlier one.
TEST_CASE("a DMA queue two engines trigger onto completes its transfers in program order") {
  Kernel k;
  k.name = "shared_queue";
  const int a = param(k, "a", {128, 64}), b = param(k, "b", {128, 64});
  const int ta = tensor(k, "ta", {128, 64}, Buffer::sbuf), tb = tensor(k, "tb", {128, 64}, Buffer::sbuf);
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(ta), k.full_view(a)}, 1, Engine::Tensor));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(tb), k.full_view(b)}, 2, Engine::GpSimd));
  isa::Program p = lower(k, trn2());
  const auto& te = p.streams[size_t(Engine::Tensor)];
  const auto& gp = p.streams[size_t(Engine::GpSimd)];
  REQUIRE(te.size() == 1);
  REQUIRE(gp.size() == 1);
  REQUIRE(te[0].params.dma_queue == gp[0].params.dma_queue);  // Tensor and GpSimd share a queue group
  const uint32_t sem = uint32_t(isa::kNumEngines) + te[0].params.dma_queue;
  CHECK(signals(te[0], sem));
  CHECK(waits_for(gp[0], sem, 1));
  // Transfers triggered by one engine stay in order by themselves: no wait between them.
  k.ops[1].engine = Engine::Tensor;
  p = lower(k, trn2());
  for (const isa::Instruction& ins : p.streams[size_t(Engine::Tensor)]) CHECK(ins.waits.empty());
}

// trn2 (dma_trigger_spread): a load goes to the first of Sync, Scalar, GpSimd (those with no compute work) whose
// earlier triggers wait for nothing later than it does, so an independent load is not held behind a refill that
// waits for a compute engine; trn1 keeps every input load on Sync, in program order.
TEST_CASE("an independent load is not held behind a refill waiting for compute (trn2), while trn1 keeps them on Sync") {
  Kernel k;
  k.name = "spread";
  const int a = param(k, "a", {128, 64}), b = param(k, "b", {128, 64}), c = param(k, "c", {128, 64});
  const int t1 = tensor(k, "t1", {128, 64}, Buffer::sbuf), t2 = tensor(k, "t2", {128, 64}, Buffer::sbuf);
  const int u = tensor(k, "u", {128, 64}, Buffer::sbuf);
  k.tensors[size_t(t1)].address = std::pair<int64_t, int64_t>{0, 0};  // placed: the refill reuses its memory
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t1), k.full_view(a)}, 1));
  k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(u), k.full_view(t1)}, 2, Engine::Vector));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t1), k.full_view(b)}, 3));  // refill: waits for the copy
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t2), k.full_view(c)}, 4));  // independent
  const isa::Program p = lower(k, trn2());
  const auto& sync = p.streams[size_t(Engine::Sync)];
  const auto& act = p.streams[size_t(Engine::Scalar)];
  REQUIRE(sync.size() == 2);  // lines 1 and 3
  CHECK(waits_for(sync[1], uint32_t(Engine::Vector), 1));
  REQUIRE(act.size() == 1);  // line 4, free to start at once
  CHECK(act[0].op == Opcode::dma_copy);
  CHECK(act[0].waits.empty());
  const isa::Program p1 = lower(k, *isa::find_target("trn1"));
  CHECK(p1.streams[size_t(Engine::Sync)].size() == 3);
  CHECK(p1.streams[size_t(Engine::Scalar)].empty());
}

// A load, copies of it on Vector, Scalar and GpSimd, and a store of Vector's copy; both DMAs with DGE mode `dge`.
Kernel vector_result_store(uint16_t dge) {
  Kernel k;
  k.name = "busy";
  const int a = param(k, "a", {128, 64}), c = param(k, "c", {128, 64});
  const int t = tensor(k, "t", {128, 64}, Buffer::sbuf), u = tensor(k, "u", {128, 64}, Buffer::sbuf);
  const int w = tensor(k, "w", {128, 64}, Buffer::sbuf), x = tensor(k, "x", {128, 64}, Buffer::sbuf);
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(t), k.full_view(a)}, 1));
  k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(u), k.full_view(t)}, 2, Engine::Vector));
  k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(w), k.full_view(t)}, 3, Engine::Scalar));
  k.ops.push_back(op(Opcode::tensor_copy, {k.full_view(x), k.full_view(t)}, 4, Engine::GpSimd));
  k.ops.push_back(op(Opcode::dma_copy, {k.full_view(c), k.full_view(u)}, 5));
  k.ops[0].params.dge_mode = k.ops[4].params.dge_mode = dge;
  return k;
}

// trn2: the store of a compute engine's result moves to an engine with no compute work, never to Sync (there its
// wait for the compute engine would hold back the loads behind it); with Scalar and GpSimd both computing, the
// producer triggers it, as on trn1.
TEST_CASE("a store of Vector's result stays on Vector when Scalar and GpSimd both compute (trn2)") {
  Kernel k = vector_result_store(0);
  const isa::Program p = lower(k, trn2());
  const auto& vec = p.streams[size_t(Engine::Vector)];
  REQUIRE(vec.size() == 2);
  CHECK(vec[1].op == Opcode::dma_copy);
  CHECK(p.streams[size_t(Engine::Sync)].size() == 1);  // the load only
  // With GpSimd free of compute, the store goes there.
  k.ops.erase(k.ops.begin() + 3);
  const isa::Program p2 = lower(k, trn2());
  REQUIRE(p2.streams[size_t(Engine::GpSimd)].size() == 1);
  CHECK(p2.streams[size_t(Engine::GpSimd)][0].op == Opcode::dma_copy);
  CHECK(p2.streams[size_t(Engine::Vector)].size() == 1);
}

// trn2: an nki.jit kernel's dge_mode=unknown DMA (dge 4) runs as hardware DGE, which only Sync or Scalar triggers
// (deps::dma_trigger_engines): the store of Vector's result leaves Vector, and with Scalar computing goes to Sync;
// with host-built descriptors (dma_dge_mode_nki = 0, as on trn1), as above, it stays on Vector.
TEST_CASE("a hardware-DGE store of Vector's result is triggered by Sync or Scalar, never Vector or GpSimd (trn2)") {
  const Kernel k = vector_result_store(4);
  const isa::Program p = lower(k, trn2());
  CHECK(p.streams[size_t(Engine::Vector)].size() == 1);  // the copy only
  CHECK(p.streams[size_t(Engine::GpSimd)].size() == 1);
  const auto& sync = p.streams[size_t(Engine::Sync)];
  REQUIRE(sync.size() == 2);  // the load and the store
  CHECK(sync[1].op == Opcode::dma_copy);
  CHECK(waits_for(sync[1], uint32_t(Engine::Vector), 1));
  isa::TargetDesc host = trn2();  // --param dma_dge_mode_nki=0: host-built descriptors, the producer rule
  host.dma_dge_mode_nki = 0;
  const isa::Program p1 = lower(k, host);
  REQUIRE(p1.streams[size_t(Engine::Vector)].size() == 2);
  CHECK(p1.streams[size_t(Engine::Vector)][1].op == Opcode::dma_copy);
}
