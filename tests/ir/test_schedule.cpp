// test_schedule.cpp - the reorder pass (ir/schedule.cpp): which ops it may move (isa::Trait::REORDER without an
// accumulator command) and the order it picks.
#include <doctest/doctest.h>

#include "ir/passes.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Opcode;

namespace {

int tensor(Kernel& k, const char* name, Buffer b) {
  Tensor t;
  t.name = name;
  t.shape = {128, 64};
  t.buffer = b;
  return k.add_tensor(t);
}

Op op(Opcode oc, std::initializer_list<int> tensors, const Kernel& k) {
  Op o;
  o.opcode = oc;
  size_t i = 0;
  for (int t : tensors) o.operands[i++] = k.full_view(t);
  return o;
}

// memset a; exponential b <- x (with `cmd`); store a; store b. In program order both SBUF tiles are live at
// once; storing a before b is made keeps only one.
Kernel two_tiles(isa::ReduceCmd cmd) {
  Kernel k;
  const int a = tensor(k, "a", Buffer::sbuf), b = tensor(k, "b", Buffer::sbuf), x = tensor(k, "x", Buffer::hbm),
            oa = tensor(k, "oa", Buffer::hbm), ob = tensor(k, "ob", Buffer::hbm);
  k.ops.push_back(op(Opcode::memset, {a}, k));
  k.ops.push_back(op(Opcode::exponential, {b, x}, k));
  k.ops.back().params.reduce_cmd = cmd;
  k.ops.push_back(op(Opcode::dma_copy, {oa, a}, k));
  k.ops.push_back(op(Opcode::dma_copy, {ob, b}, k));
  return k;
}

}  // namespace

TEST_CASE("schedule: an op the table lets move is moved after the store that frees a tile") {
  const Kernel k = two_tiles(isa::ReduceCmd::idle);
  const auto out = schedule_for_pressure(k, Buffer::sbuf, int64_t(1) << 30);
  REQUIRE(out);
  REQUIRE(out->ops.size() == 4);
  CHECK(out->ops[0].opcode == Opcode::memset);
  CHECK(out->ops[1].opcode == Opcode::dma_copy);
  CHECK(out->ops[1].operands[1]->tensor == k.ops[0].operands[0]->tensor);  // store a
  CHECK(out->ops[2].opcode == Opcode::exponential);
  CHECK(out->ops[3].opcode == Opcode::dma_copy);
}

TEST_CASE("schedule: an accumulator command is engine state: the op stays in place, whatever its opcode") {
  for (isa::ReduceCmd cmd : {isa::ReduceCmd::reset, isa::ReduceCmd::reduce, isa::ReduceCmd::load_reduce}) {
    CAPTURE(int(cmd));
    CHECK_FALSE(schedule_for_pressure(two_tiles(cmd), Buffer::sbuf, int64_t(1) << 30));
  }
}

TEST_CASE("schedule: an op made in a no_reorder block (Op::keep_order) stays in place") {
  Kernel k = two_tiles(isa::ReduceCmd::idle);
  k.ops[1].keep_order = true;  // the exponential the first test moves after the store
  CHECK_FALSE(schedule_for_pressure(k, Buffer::sbuf, int64_t(1) << 30));
  CHECK(reorderable(two_tiles(isa::ReduceCmd::idle).ops[1]));
  CHECK_FALSE(reorderable(k.ops[1]));
}
