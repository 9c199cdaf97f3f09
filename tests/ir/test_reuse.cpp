// test_reuse.cpp - recomputation removal (ir/reuse.cpp): what is dropped, what is renamed, what is kept.
#include <doctest/doctest.h>

#include "ir/passes.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Opcode;

namespace {

int tile(Kernel& k, const char* name, Buffer b = Buffer::sbuf) {
  Tensor t;
  t.name = name;
  t.shape = {128, 64};
  t.buffer = b;
  return k.add_tensor(t);
}

Op op(Opcode oc, std::initializer_list<int> tensors, const Kernel& k, isa::AluOp alu = isa::AluOp::multiply) {
  Op o;
  o.opcode = oc;
  size_t i = 0;
  for (int t : tensors) o.operands[i++] = k.full_view(t);
  o.params.op0 = alu;
  return o;
}

// x, y loaded once; then per "iteration" d_i = x * y (invariant) and r_i = d_i + z_i.
struct Loop {
  Kernel k;
  int x, y, d0, d1, z0, z1, r0, r1;
  Loop() {
    x = tile(k, "x"), y = tile(k, "y"), d0 = tile(k, "d0"), d1 = tile(k, "d1");
    z0 = tile(k, "z0"), z1 = tile(k, "z1"), r0 = tile(k, "r0"), r1 = tile(k, "r1");
    k.ops.push_back(op(Opcode::memset, {x}, k));
    k.ops.push_back(op(Opcode::memset, {y}, k));
    k.ops.push_back(op(Opcode::memset, {z0}, k));
    k.ops.push_back(op(Opcode::memset, {z1}, k));
  }
  void iteration(int d, int z, int r) {
    k.ops.push_back(op(Opcode::tensor_tensor, {d, x, y}, k));
    k.ops.push_back(op(Opcode::tensor_tensor, {r, d, z}, k, isa::AluOp::add));
  }
};

}  // namespace

TEST_CASE("reuse: an invariant computation into a fresh tile is dropped and its tile renamed after it") {
  Loop l;
  l.iteration(l.d0, l.z0, l.r0);
  l.iteration(l.d1, l.z1, l.r1);
  auto out = reuse_recomputations(l.k);
  REQUIRE(out);
  REQUIRE(out->ops.size() == l.k.ops.size() - 1);
  const Op& last = out->ops.back();  // r1 = d0 + z1
  CHECK(last.operands[0]->tensor == l.r1);
  CHECK(last.operands[1]->tensor == l.d0);
  CHECK(last.operands[2]->tensor == l.z1);
}

TEST_CASE("reuse: a source written in between, a destination written twice, or another op keep the op") {
  SUBCASE("source written between the two") {
    Loop l;
    l.iteration(l.d0, l.z0, l.r0);
    l.k.ops.push_back(op(Opcode::memset, {l.x}, l.k));
    l.iteration(l.d1, l.z1, l.r1);
    CHECK_FALSE(reuse_recomputations(l.k));
  }
  SUBCASE("the later destination is written again") {
    Loop l;
    l.iteration(l.d0, l.z0, l.r0);
    l.iteration(l.d1, l.z1, l.r1);
    l.k.ops.push_back(op(Opcode::memset, {l.d1}, l.k));
    CHECK_FALSE(reuse_recomputations(l.k));
  }
  SUBCASE("another operator") {
    Loop l;
    l.iteration(l.d0, l.z0, l.r0);
    l.k.ops.push_back(op(Opcode::tensor_tensor, {l.d1, l.x, l.y}, l.k, isa::AluOp::add));
    CHECK_FALSE(reuse_recomputations(l.k));
  }
  SUBCASE("inside a dynamic loop") {
    Loop l;
    l.iteration(l.d0, l.z0, l.r0);
    Op head;
    head.opcode = Opcode::branch;
    head.ctl = Ctl::loop_begin;
    l.k.ops.push_back(head);
    l.iteration(l.d1, l.z1, l.r1);
    Op end = head;
    end.ctl = Ctl::loop_end;
    l.k.ops.push_back(end);
    CHECK_FALSE(reuse_recomputations(l.k));
  }
  SUBCASE("a tile placed with address=") {
    Loop l;
    l.k.tensors[size_t(l.d1)].address = std::make_pair(int64_t(0), int64_t(4096));
    l.iteration(l.d0, l.z0, l.r0);
    l.iteration(l.d1, l.z1, l.r1);
    CHECK_FALSE(reuse_recomputations(l.k));
  }
}

TEST_CASE("reuse: a read of the dropped tile before its write is not renamed") {
  Loop l;
  l.iteration(l.d0, l.z0, l.r0);
  l.k.ops.push_back(op(Opcode::tensor_copy, {l.r1, l.d1}, l.k));  // reads d1 before anything wrote it
  l.k.ops.push_back(op(Opcode::tensor_tensor, {l.d1, l.x, l.y}, l.k));
  auto out = reuse_recomputations(l.k);
  REQUIRE(out);
  CHECK(out->ops.back().opcode == Opcode::tensor_copy);
  CHECK(out->ops.back().operands[1]->tensor == l.d1);
}
