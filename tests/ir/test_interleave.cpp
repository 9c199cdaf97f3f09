// test_interleave.cpp - runs of independent PSUM accumulation groups issued contraction-step-major
// (ir/interleave.cpp): which groups join a run, the order it picks, and what ends a run.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "ir/passes.h"
#include "isa/target.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Opcode;

namespace {

SourceLoc at(uint32_t line) { return SourceLoc{"k.py", line, 5}; }

int tensor(Kernel& k, const std::string& name, Buffer b, int64_t free = 512, uint32_t line = 0) {
  Tensor t;
  t.name = name;
  t.shape = {128, free};
  t.buffer = b;
  t.loc = at(line);
  return k.add_tensor(t);
}

Op op(Opcode oc, std::initializer_list<int> tensors, const Kernel& k, uint32_t line) {
  Op o;
  o.opcode = oc;
  o.loc = at(line);
  size_t i = 0;
  for (int t : tensors) o.operands[i++] = k.full_view(t);
  return o;
}

// `groups` accumulation groups of `steps` matmuls each (group g, step s: load_stationary w[s] at line 10,
// multiply_moving into p[g] of v[s] at line 11), each followed by its evacuation (tensor_copy o[g] <- p[g]); then,
// with `refill`, a DMA loads the next w[0] (a tile made at w[0]'s line 5: in the compiler's view the same tile).
struct Groups {
  Kernel k;
  std::vector<int> w, v, p, o;
};
Groups make(int groups, int steps, int64_t psum_free = 512, bool refill = true) {
  Groups g;
  for (int s = 0; s < steps; ++s) {
    g.w.push_back(tensor(g.k, "w" + std::to_string(s), Buffer::sbuf, 128, 5));
    g.v.push_back(tensor(g.k, "v" + std::to_string(s), Buffer::sbuf, 512, 6));
  }
  for (int i = 0; i < groups; ++i) {
    g.p.push_back(tensor(g.k, "p" + std::to_string(i), Buffer::psum, psum_free, 8));
    g.o.push_back(tensor(g.k, "o" + std::to_string(i), Buffer::sbuf, psum_free, 9));
    for (int s = 0; s < steps; ++s) {
      g.k.ops.push_back(op(Opcode::load_stationary, {g.w[size_t(s)]}, g.k, 10));
      g.k.ops.push_back(op(Opcode::multiply_moving, {g.p.back(), g.v[size_t(s)]}, g.k, 11));
      g.k.ops.back().params.accumulate = s > 0;
    }
    g.k.ops.push_back(op(Opcode::tensor_copy, {g.o.back(), g.p.back()}, g.k, 12));
  }
  if (refill) {
    const int next = tensor(g.k, "w0_next", Buffer::sbuf, 128, 5), src = tensor(g.k, "lhs", Buffer::hbm, 128, 1);
    g.k.ops.push_back(op(Opcode::dma_copy, {next, src}, g.k, 14));
  }
  return g;
}

// "g<group>s<step>" for a multiply, "e<group>" for an evacuation (load_stationary ops are skipped).
std::string order(const Groups& g, const Kernel& k) {
  std::string s;
  for (const Op& o : k.ops) {
    if (o.opcode == Opcode::multiply_moving) {
      const int p = o.operands[0]->tensor, v = o.operands[1]->tensor;
      s += "g" + std::to_string(std::find(g.p.begin(), g.p.end(), p) - g.p.begin()) + "s" +
           std::to_string(std::find(g.v.begin(), g.v.end(), v) - g.v.begin()) + " ";
    } else if (o.opcode == Opcode::tensor_copy) {
      s += "e" + std::to_string(std::find(g.o.begin(), g.o.end(), o.operands[0]->tensor) - g.o.begin()) + " ";
    }
  }
  return s;
}

}  // namespace

TEST_CASE("interleave: independent groups are issued step-major, each evacuation after its group's last step") {
  const Groups g = make(3, 2);
  const auto out = interleave_accumulation_groups(g.k, *isa::find_target("trn2"));
  REQUIRE(out);
  CHECK(order(g, *out) == "g0s0 g1s0 g2s0 g0s1 e0 g1s1 e1 g2s1 e2 ");
  // Each multiply keeps the stationary load before it.
  for (size_t i = 0; i < out->ops.size(); ++i)
    if (out->ops[i].opcode == Opcode::multiply_moving) {
      REQUIRE(i > 0);
      CHECK(out->ops[i - 1].opcode == Opcode::load_stationary);
    }
}

TEST_CASE("interleave: a run holds at most what PSUM holds, one group per bank") {
  // trn2: 8 banks of 2 KiB per partition. [128, 512] fp32 groups take a bank each: runs of 8.
  const isa::TargetDesc t = *isa::find_target("trn2");
  REQUIRE(t.psum_banks == 8);
  const Groups g = make(10, 2);
  const auto out = interleave_accumulation_groups(g.k, t);
  REQUIRE(out);
  CHECK(order(g, *out) ==
        "g0s0 g1s0 g2s0 g3s0 g4s0 g5s0 g6s0 g7s0 g0s1 e0 g1s1 e1 g2s1 e2 g3s1 e3 g4s1 e4 g5s1 e5 g6s1 e6 g7s1 e7 "
        "g8s0 g9s0 g8s1 e8 g9s1 e9 ");
  // Single-step groups interleave into program order: nothing changes.
  CHECK_FALSE(interleave_accumulation_groups(make(10, 1).k, t));
  // [128, 2048] fp32 groups take four banks each: runs of 2.
  const Groups big = make(3, 2, 2048);
  const auto out2 = interleave_accumulation_groups(big.k, t);
  REQUIRE(out2);
  CHECK(order(big, *out2) == "g0s0 g1s0 g0s1 e0 g1s1 e1 g2s0 g2s1 e2 ");
}

TEST_CASE("interleave: a group reading what an earlier group's evacuation writes ends the run") {
  Groups g = make(3, 2);
  // Group 2's second multiply reads o[0], which group 0's evacuation writes.
  for (Op& o : g.k.ops)
    if (o.opcode == Opcode::multiply_moving && o.operands[0]->tensor == g.p[2] && o.params.accumulate)
      o.operands[1] = g.k.full_view(g.o[0]);
  const auto out = interleave_accumulation_groups(g.k, *isa::find_target("trn2"));
  REQUIRE(out);
  CHECK(order(g, *out) == "g0s0 g1s0 g0s1 e0 g1s1 e1 g2s0 g2s2 e2 ");
}

TEST_CASE("interleave: nothing to interleave leaves the kernel alone") {
  CHECK_FALSE(interleave_accumulation_groups(make(1, 4).k, *isa::find_target("trn2")));
  // Two groups accumulating into one PSUM tensor depend on each other.
  Groups g = make(2, 2);
  for (Op& o : g.k.ops)
    if (o.opcode == Opcode::multiply_moving) o.operands[0] = g.k.full_view(g.p[0]);
  for (Op& o : g.k.ops)
    if (o.opcode == Opcode::tensor_copy) o.operands[1] = g.k.full_view(g.p[0]);
  CHECK_FALSE(interleave_accumulation_groups(g.k, *isa::find_target("trn2")));
  // A PSUM tensor placed by the kernel (address=) is the kernel's own business.
  Groups placed = make(3, 2);
  for (int p : placed.p) placed.k.tensors[size_t(p)].address = std::make_pair(int64_t(0), int64_t(0));
  CHECK_FALSE(interleave_accumulation_groups(placed.k, *isa::find_target("trn2")));
  // No tile the groups read is refilled afterwards: nothing waits for their last reads.
  CHECK_FALSE(interleave_accumulation_groups(make(3, 2, 512, false).k, *isa::find_target("trn2")));
  // The refilled tile is read at every step (one stationary for the whole contraction): its last read stays at
  // the run's end whatever the order.
  Groups same = make(3, 2);
  for (Op& o : same.k.ops)
    if (o.opcode == Opcode::load_stationary) o.operands[0] = same.k.full_view(same.w[0]);
  CHECK_FALSE(interleave_accumulation_groups(same.k, *isa::find_target("trn2")));
}

TEST_CASE("interleave: only iterations of one loop (matmuls made at the same lines) share a run") {
  Groups g = make(4, 2);
  // Group 2's multiplies come from another line of the kernel: it starts a run of its own.
  for (Op& o : g.k.ops)
    if (o.opcode == Opcode::multiply_moving && o.operands[0]->tensor == g.p[2]) o.loc = at(30);
  const auto out = interleave_accumulation_groups(g.k, *isa::find_target("trn2"));
  REQUIRE(out);
  CHECK(order(g, *out) == "g0s0 g1s0 g0s1 e0 g1s1 e1 g2s0 g2s1 e2 g3s0 g3s1 e3 ");
}

TEST_CASE("interleave: an op made in a no_reorder block (Op::keep_order) is never moved") {
  Groups g = make(3, 2);
  for (Op& o : g.k.ops)
    if (o.opcode == Opcode::load_stationary) o.keep_order = true;
  CHECK_FALSE(interleave_accumulation_groups(g.k, *isa::find_target("trn2")));
  // One kept evacuation: its group ends the run (its tail cannot move past later groups' matmuls).
  Groups h = make(4, 2);
  for (Op& o : h.k.ops)
    if (o.opcode == Opcode::tensor_copy && o.operands[0]->tensor == h.o[1]) o.keep_order = true;
  const auto out = interleave_accumulation_groups(h.k, *isa::find_target("trn2"));
  REQUIRE(out);
  CHECK(order(h, *out) == "g0s0 g1s0 g0s1 e0 g1s1 e1 g2s0 g3s0 g2s1 e2 g3s1 e3 ");
}

TEST_CASE("interleave: on random kernels every pair of ops touching a tensor, one writing it, keeps its order") {
  // Random runs of groups (same lines, so they may share runs) whose tails copy between random tiles, some of
  // them the groups' inputs; random refills and kept ops. The pass may reorder; it must never swap two ops that
  // conflict (one writes a tensor the other reads or writes), and must keep every op exactly once.
  std::mt19937 rng(20261126);
  const isa::TargetDesc t = *isa::find_target("trn2");
  int reordered = 0;
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    const int steps = 1 + int(rng() % 3), groups = 2 + int(rng() % 10);
    Groups g = make(0, steps, 512, false);
    std::vector<int> pool = g.w;  // tiles the tails may touch: the inputs and a few scratch tiles
    pool.insert(pool.end(), g.v.begin(), g.v.end());
    for (int s = 0; s < 3; ++s) pool.push_back(tensor(g.k, "s" + std::to_string(s), Buffer::sbuf, 512, 7));
    for (int i = 0; i < groups; ++i) {
      const int p = tensor(g.k, "p" + std::to_string(i), Buffer::psum, rng() % 4 ? 512 : 2048, 8);
      g.p.push_back(p);
      for (int s = 0; s < steps; ++s) {
        g.k.ops.push_back(op(Opcode::load_stationary, {g.w[size_t(s)]}, g.k, 10));
        g.k.ops.push_back(op(Opcode::multiply_moving, {p, g.v[size_t(s)]}, g.k, 11));
        g.k.ops.back().params.accumulate = s > 0;
      }
      const int o = tensor(g.k, "o" + std::to_string(i), Buffer::sbuf, 512, 9);
      g.o.push_back(o);
      g.k.ops.push_back(op(Opcode::tensor_copy, {o, p}, g.k, 12));
      for (int x = int(rng() % 3); x > 0; --x) {  // extra tail ops over the pool
        const int dst = pool[rng() % pool.size()], src = rng() % 2 ? o : pool[rng() % pool.size()];
        g.k.ops.push_back(op(Opcode::tensor_copy, {dst, src}, g.k, 13));
      }
      if (rng() % 4 == 0) {  // a refill of an input tile
        const int next = tensor(g.k, "w0_next", Buffer::sbuf, 128, 5), src = tensor(g.k, "lhs", Buffer::hbm, 128, 1);
        g.k.ops.push_back(op(Opcode::dma_copy, {next, src}, g.k, 14));
      }
    }
    for (Op& o : g.k.ops)
      if (rng() % 40 == 0) o.keep_order = true;
    const auto out = interleave_accumulation_groups(g.k, t);
    if (!out) continue;
    ++reordered;
    // Where each original op went: ops are matched by content (opcode, tensors, flags), in order of appearance.
    auto key = [](const Op& o) {
      std::string s = std::to_string(int(o.opcode)) + (o.params.accumulate ? "a" : "") + (o.keep_order ? "k" : "");
      for_each_operand(o, [&](int, const View& v, const isa::OperandSpec&) { s += "," + std::to_string(v.tensor); });
      return s;
    };
    REQUIRE(out->ops.size() == g.k.ops.size());
    std::vector<size_t> pos(g.k.ops.size());
    std::vector<char> used(out->ops.size(), 0);
    for (size_t i = 0; i < g.k.ops.size(); ++i) {
      size_t j = 0;
      while (j < out->ops.size() && (used[j] || key(out->ops[j]) != key(g.k.ops[i]))) ++j;
      REQUIRE(j < out->ops.size());
      used[j] = 1;
      pos[i] = j;
    }
    auto touches = [](const Op& o, bool& wrote, int t) {
      bool hit = false;
      wrote = false;
      for_each_operand(o, [&](int s, const View& v, const isa::OperandSpec& sp) {
        if (v.tensor != t) return;
        hit = true;
        if (sp.written) wrote = true;
        (void)s;
      });
      return hit;
    };
    for (size_t i = 0; i < g.k.ops.size(); ++i)
      for (size_t j = i + 1; j < g.k.ops.size(); ++j) {
        bool conflict = g.k.ops[i].keep_order && g.k.ops[j].keep_order;
        for_each_operand(g.k.ops[i], [&](int, const View& v, const isa::OperandSpec& sp) {
          bool wj = false;
          if (touches(g.k.ops[j], wj, v.tensor) && (sp.written || wj)) conflict = true;
        });
        if (conflict && pos[i] > pos[j]) FAIL("ops " << i << " and " << j << " swapped");
      }
    // Kept ops stay where they were relative to everything.
    for (size_t i = 0; i < g.k.ops.size(); ++i)
      if (g.k.ops[i].keep_order)
        for (size_t j = 0; j < g.k.ops.size(); ++j)
          if (j != i) CHECK((i < j) == (pos[i] < pos[j]));
  }
  CHECK(reordered > 50);  // the property was exercised
}
