// test_list_schedule.cpp - the compiler's list scheduler and its engine choice for copies (ir/list_schedule.cpp):
// which op an engine's stream takes first, the dependencies that hold an op back, what stays in place, and which
// engine an engine=unknown copy gets.
#include <doctest/doctest.h>

#include <vector>

#include "ir/lower.h"
#include "ir/passes.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::Engine;
using isa::Opcode;

namespace {

int tile(Kernel& k, const char* name, int64_t free, Buffer b = Buffer::sbuf) {
  Tensor t;
  t.name = name;
  t.shape = {128, free};
  t.buffer = b;
  t.dtype = isa::DType::float32;
  return k.add_tensor(t);
}

Op op(Opcode oc, std::vector<View> views) {
  Op o;
  o.opcode = oc;
  for (size_t i = 0; i < views.size(); ++i) o.operands[i] = views[i];
  if (oc == Opcode::tensor_scalar) o.params.imm0 = 2.0f;
  return o;
}

isa::TargetDesc target(const char* name, bool schedule = true) {
  isa::TargetDesc t = *isa::find_target(name);
  t.list_schedule = schedule ? 1 : 0;
  return t;
}

std::vector<Opcode> stream(const isa::Program& p, Engine e) {
  std::vector<Opcode> out;
  for (const isa::Instruction& ins : p.streams[size_t(e)])
    if (!isa::has_trait(ins.op, isa::Trait::CONTROL)) out.push_back(ins.op);
  return out;
}

// x -> (Scalar, 4096 elements) s; v = s + s on Vector (waits for the Scalar Engine); w = x * 2 on Vector (ready
// at once). In program order the Vector Engine's second op waits behind its first.
struct Blocked {
  Kernel k;
  int x, s, v, w;
  Blocked() {
    k.name = "blocked";
    x = tile(k, "x", 4096), s = tile(k, "s", 4096), v = tile(k, "v", 4096), w = tile(k, "w", 64);
    k.ops.push_back(op(Opcode::activation, {k.full_view(s), k.full_view(x)}));
    k.ops.push_back(op(Opcode::tensor_tensor, {k.full_view(v), k.full_view(s), k.full_view(s)}));
    View x64 = k.full_view(x);
    x64.dims[1].count = 64;
    k.ops.push_back(op(Opcode::tensor_scalar, {k.full_view(w), x64}));
  }
};

}  // namespace

TEST_CASE("an engine takes its ready op before an earlier one still waiting for its input") {
  Blocked b;
  CHECK(stream(lower(b.k, target("trn2", false)), Engine::Vector) ==
        std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
  const isa::Program p = lower(b.k, target("trn2"));
  CHECK(stream(p, Engine::Vector) == std::vector<Opcode>{Opcode::tensor_scalar, Opcode::tensor_tensor});
  // The moved op waits for nothing; the one that reads the Scalar Engine's result still waits for it.
  const std::vector<isa::Instruction>& v = p.streams[size_t(Engine::Vector)];
  size_t waits_scalar = 0;
  for (const isa::Instruction& ins : v)
    for (const isa::SemWait& w : ins.waits) waits_scalar += w.sem == uint16_t(Engine::Scalar);
  CHECK(waits_scalar == 1);
  CHECK(v.front().waits.empty());
}

TEST_CASE("what holds an op in place: a write over what an earlier op reads, no_reorder, a run-time offset") {
  SUBCASE("write after read") {
    Blocked b;
    // w = x * 2 now writes x's first columns, which the Scalar Engine's activation reads: it must follow it. (x is
    // placed: an automatically allocated tile would get a second buffer for the new value, ir/rename.cpp.)
    b.k.tensors[size_t(b.x)].address = std::pair<int64_t, int64_t>{0, 0};
    View x64 = b.k.full_view(b.x);
    x64.dims[1].count = 64;
    b.k.ops[2].operands[0] = x64;
    b.k.ops[2].operands[1] = b.k.full_view(b.w);
    CHECK(stream(lower(b.k, target("trn2")), Engine::Vector) ==
          std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
  }
  SUBCASE("read after write") {
    Blocked b;
    View s64 = b.k.full_view(b.s);
    s64.dims[1].count = 64;
    b.k.ops[2].operands[1] = s64;  // w = s * 2 reads the activation's result
    CHECK(stream(lower(b.k, target("trn2")), Engine::Vector) ==
          std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
  }
  SUBCASE("nl.no_reorder") {
    Blocked b;
    b.k.ops[2].keep_order = true;
    CHECK(stream(lower(b.k, target("trn2")), Engine::Vector) ==
          std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
  }
}

TEST_CASE("tiles that meet inside 128 bytes but do not overlap hold nothing back (the kernel's chip granule)") {
  // s ends at byte 16360 of each partition, where w begins: a write of w does not follow the activation's write
  // of s. Tracked in 128-byte granules, the two shared one and w = x * 2 waited behind v = s + s.
  Blocked b;
  auto place = [&](int t, int64_t free, int64_t byte) {
    b.k.tensors[size_t(t)].shape = {128, free};
    b.k.tensors[size_t(t)].address = std::pair<int64_t, int64_t>{0, byte};
  };
  place(b.s, 4090, 0);
  place(b.w, 64, 4090 * 4);
  place(b.x, 4096, 32768);
  place(b.v, 4090, 65536);
  View x4090 = b.k.full_view(b.x);
  x4090.dims[1].count = 4090;
  b.k.ops[0].operands[0] = b.k.full_view(b.s);  // s = act(x[:, :4090])
  b.k.ops[0].operands[1] = x4090;
  for (int o = 0; o < 3; ++o) b.k.ops[1].operands[size_t(o)] = b.k.full_view(o == 0 ? b.v : b.s);
  CHECK(stream(lower(b.k, target("trn2")), Engine::Vector) ==
        std::vector<Opcode>{Opcode::tensor_scalar, Opcode::tensor_tensor});
  SUBCASE("one byte of overlap: it waits") {
    place(b.w, 64, 4090 * 4 - 4);
    CHECK(stream(lower(b.k, target("trn2")), Engine::Vector) ==
          std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
  }
}

TEST_CASE("transfers start in program order, but one does not wait for the end of the one before") {
  // A large load into partitions 0-63 (DMA engines 0-7), then a small one into 64-127 (engines 8-15). The small
  // one starts right after the large one starts and is done long before it: the Vector op that reads it goes
  // ahead of the one that reads the large load, though it comes later in program order.
  Kernel k;
  k.name = "loads";
  auto hbm = [&](const char* name, int64_t p, int64_t free) {
    Tensor t;
    t.name = name;
    t.shape = {p, free};
    t.buffer = Buffer::hbm;
    t.role = Tensor::Role::Param;
    t.param_index = int(k.params.size());
    const int i = k.add_tensor(t);
    k.params.push_back(i);
    return i;
  };
  const int big = hbm("big", 64, 16384), small = hbm("small", 64, 64);
  const int a = tile(k, "a", 16384), c = tile(k, "c", 64), ya = tile(k, "ya", 64), yc = tile(k, "yc", 64);
  View a_top = k.full_view(a), c_bottom = k.full_view(c);
  a_top.dims[0].count = 64;
  c_bottom.offset = 64 * c_bottom.dims[0].stride;
  c_bottom.dims[0].count = 64;
  k.ops.push_back(op(Opcode::dma_copy, {a_top, k.full_view(big)}));
  k.ops.push_back(op(Opcode::dma_copy, {c_bottom, k.full_view(small)}));
  View a64 = a_top;
  a64.dims[1].count = 64;
  View ya_top = k.full_view(ya), yc_bottom = k.full_view(yc);
  ya_top.dims[0].count = 64;
  yc_bottom.offset = c_bottom.offset;
  yc_bottom.dims[0].count = 64;
  k.ops.push_back(op(Opcode::tensor_scalar, {ya_top, a64}));
  k.ops.push_back(op(Opcode::tensor_tensor, {yc_bottom, c_bottom, c_bottom}));
  CHECK(stream(lower(k, target("trn2", false)), Engine::Vector) ==
        std::vector<Opcode>{Opcode::tensor_scalar, Opcode::tensor_tensor});
  CHECK(stream(lower(k, target("trn2")), Engine::Vector) ==
        std::vector<Opcode>{Opcode::tensor_tensor, Opcode::tensor_scalar});
}

TEST_CASE("an engine=unknown copy goes to the engine that finishes it first") {
  // The Vector Engine is busy with 4096 elements; a copy of 2048 more without engine= goes elsewhere. The Scalar
  // Engine runs an activation (so it is not kept for DMA triggers, dma_trigger_spread); GpSimd a tensor_scalar
  // unless `gpsimd_idle`.
  auto kernel = [](Buffer src_buffer, std::optional<Engine> engine, bool gpsimd_idle = false) {
    Kernel k;
    k.name = "copies";
    const int x = tile(k, "x", 4096), v = tile(k, "v", 4096), c = tile(k, "c", 2048);
    const int y = tile(k, "y", 2048, src_buffer), a = tile(k, "a", 64), g = tile(k, "g", 64);
    k.ops.push_back(op(Opcode::tensor_scalar, {k.full_view(v), k.full_view(x)}));
    Op copy = op(Opcode::tensor_copy, {k.full_view(c), k.full_view(y)});
    copy.engine = engine;
    k.ops.push_back(copy);
    View x64 = k.full_view(x);
    x64.dims[1].count = 64;
    k.ops.push_back(op(Opcode::activation, {k.full_view(a), x64}));
    if (!gpsimd_idle) {
      Op gs = op(Opcode::tensor_scalar, {k.full_view(g), x64});
      gs.engine = Engine::GpSimd;
      k.ops.push_back(gs);
    }
    return k;
  };
  auto copy_engine = [](const isa::Program& p) {
    for (size_t e = 0; e < p.streams.size(); ++e)
      for (const isa::Instruction& ins : p.streams[e])
        if (ins.op == Opcode::tensor_copy) return Engine(e);
    return Engine::Sync;
  };
  SUBCASE("from SBUF") {
    const Engine e = copy_engine(lower(kernel(Buffer::sbuf, std::nullopt), target("trn2")));
    CHECK((e == Engine::Scalar || e == Engine::GpSimd));
    CHECK(copy_engine(lower(kernel(Buffer::sbuf, std::nullopt), target("trn2", false))) == Engine::Vector);
  }
  SUBCASE("from PSUM: never GpSimd, which cannot access PSUM") {
    CHECK(copy_engine(lower(kernel(Buffer::psum, std::nullopt), target("trn2"))) == Engine::Scalar);
    // trn1 (NeuronCore-v2): no tensor_copy on the Scalar Engine either, so the Vector Engine keeps it.
    CHECK(copy_engine(lower(kernel(Buffer::psum, std::nullopt), target("trn1"))) == Engine::Vector);
  }
  SUBCASE("not to an engine kept for DMA triggers") {
    // trn2 without GpSimd work: GpSimd stays free for triggers; the Scalar Engine takes the copy.
    CHECK(copy_engine(lower(kernel(Buffer::sbuf, std::nullopt, true), target("trn2"))) == Engine::Scalar);
  }
  SUBCASE("engine= is kept") {
    CHECK(copy_engine(lower(kernel(Buffer::sbuf, Engine::Vector), target("trn2"))) == Engine::Vector);
  }
}
