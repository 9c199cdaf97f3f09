// test_dynamic_offset.cpp - dynamic offsets of on-chip operands (isa::DynOffset, sim/dynamic_offset.cpp,
// docs/dynamic-offsets.md): the offset is read from SBUF or a register when the instruction executes, the
// operand moves by offset x stride elements, out-of-bounds is a located run-time error, malformed offsets are
// rejected, and the cost is max(MIN_II_DYNAMIC, N).
#include <doctest/doctest.h>

#include "sim/cost.h"
#include "vector_test_util.h"

using namespace vectest;

namespace {
// data: [4, 32] fp32 at SBUF byte 0 (4 rows of 8 per partition when seen as [4, 4, 8]); offs: [1, 1] at 128.
struct DynCopy {
  Kernel k;
  std::vector<float> data = noise(4 * 32, 5);
  AccessPattern src, offs, dst;
  explicit DynCopy(int32_t offset, DType odt = DType::int32) {
    src = k.f32_in(data, 4, 32);
    if (odt == DType::int32) offs = k.raw_in<int32_t>(odt, {offset}, 1, 1);
    else offs = k.raw_in<uint16_t>(odt, {uint16_t(offset)}, 1, 1);
    dst = k.tile(DType::float32, 4, 8);
    src.dims[0] = isa::ApDim{1, 8};  // row 0 of each partition, moved at run time
    src.dyn = isa::DynOffset{isa::DynOffset::Sbuf, odt, uint16_t(offs.start_partition), int32_t(offs.offset), 8, 0, 128};
  }
};
std::vector<float> row(const std::vector<float>& data, int r) {
  std::vector<float> out;
  for (int p = 0; p < 4; ++p)
    for (int j = 0; j < 8; ++j) out.push_back(data[size_t(p * 32 + r * 8 + j)]);
  return out;
}
}  // namespace

TEST_CASE("dynamic src offset read from SBUF when tensor_copy executes") {
  for (int r : {0, 1, 3}) {
    DynCopy c(r);
    c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    c.k.out(c.dst);
    CHECK(f32_out(c.k.run(), 0) == row(c.data, r));
  }
  DynCopy u(2, DType::uint16);  // an unsigned 16-bit offset
  u.k.op(Engine::GpSimd, Opcode::tensor_copy, {u.dst, u.src});
  u.k.out(u.dst);
  CHECK(f32_out(u.k.run(), 0) == row(u.data, 2));
}

TEST_CASE("dynamic dst offset: only the selected row is written") {
  DynCopy c(2);
  AccessPattern whole = c.src;  // the [4, 32] data tile
  whole.dims[0] = isa::ApDim{1, 32};
  whole.dyn = {};
  AccessPattern in = c.k.f32_in(std::vector<float>(32, 7.0f), 4, 8);
  AccessPattern d = whole;
  d.dims[0] = isa::ApDim{1, 8};
  d.dyn = c.src.dyn;
  c.k.op(Engine::Vector, Opcode::tensor_copy, {d, in});
  c.k.out(whole);
  std::vector<float> want = c.data;
  for (int p = 0; p < 4; ++p)
    for (int j = 0; j < 8; ++j) want[size_t(p * 32 + 16 + j)] = 7.0f;
  CHECK(f32_out(c.k.run(), 0) == want);
}

TEST_CASE("dynamic offset from a sequencer register of the executing engine") {
  DynCopy c(0);
  isa::Instruction set;
  set.op = Opcode::reg_set;
  set.params.rd = 5;
  set.params.rimm = 3;
  c.k.b.add(Engine::Scalar, set);
  c.src.dyn = isa::DynOffset{isa::DynOffset::Reg, DType::int32, 5, 0, 8, 0, 128};
  c.k.op(Engine::Scalar, Opcode::activation, {c.dst, c.src});
  c.k.out(c.dst);
  CHECK(f32_out(c.k.run(), 0) == row(c.data, 3));
}

TEST_CASE("an out-of-bounds dynamic offset is a located run-time error, never an out-of-bounds access") {
  for (auto [v, lo, hi] : {std::tuple{4, 128, 160}, std::tuple{-1, -32, 0}}) {
    DynCopy c(v);
    auto& ins = c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    ins.loc = c.k.b.loc("k.py", 12, 5);
    c.k.out(c.dst);
    try {
      c.k.run();
      FAIL("no error");
    } catch (const nkisim::Error& e) {
      CHECK(std::string(e.what()) ==
            "tensor_copy: out-of-bounds dynamic offset on operand 'src': offset " + std::to_string(v) +
                " (read from SBUF) x 8 elements moves the access to bytes [" + std::to_string(lo) + ", " +
                std::to_string(hi) + ") of each partition, outside its tensor's bytes [0, 128)");
      REQUIRE(e.loc);
      CHECK(e.loc->line == 12);
    }
  }
  DynCopy huge(0x7fffffff);  // value x stride x 4 bytes far outside memory: still the bounds error
  huge.k.op(Engine::Vector, Opcode::tensor_copy, {huge.dst, huge.src});
  CHECK(huge.k.error().find("out-of-bounds dynamic offset on operand 'src': offset 2147483647") != std::string::npos);
}

TEST_CASE("malformed dynamic offsets are rejected with the operand named") {
  {
    DynCopy c(0);
    c.src.dyn.src = 200;  // SBUF partition 200
    c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    CHECK(c.k.error() == "tensor_copy: operand 'src' reads its dynamic offset outside SBUF (partition 200, byte 128)");
  }
  {
    DynCopy c(0);
    c.src.dyn.dtype = DType::float32;
    c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    CHECK(c.k.error() == "tensor_copy: operand 'src' has a dynamic offset of non-integer dtype float32");
  }
  {
    DynCopy c(0);
    c.src.dyn = isa::DynOffset{isa::DynOffset::Reg, DType::int32, 200, 0, 8, 0, 128};
    c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    CHECK(c.k.error() == "tensor_copy: operand 'src' reads its dynamic offset from register r200 out of range [0, 64)");
  }
  {
    DynCopy c(0);
    c.src.dyn.hi = 1 << 30;
    c.k.op(Engine::Vector, Opcode::tensor_copy, {c.dst, c.src});
    const int64_t bytes = int64_t(isa::find_target("trn2")->sbuf_partition_bytes);
    CHECK(c.k.error() == "tensor_copy: operand 'src' has dynamic offset bounds [0, 1073741824) outside the "
                         "partition's " + std::to_string(bytes) + " bytes");
  }
}

TEST_CASE("cost: an instruction with a dynamic operand costs max(MIN_II_DYNAMIC, its own cost)") {
  const isa::TargetDesc t = *isa::find_target("trn1");
  CHECK(t.min_ii_dynamic_cycles == 600);
  DynCopy c(0);
  isa::Instruction ins = make(Opcode::tensor_copy, {c.dst, c.src});
  CHECK(sim::has_dynamic_operand(ins));
  CHECK(sim::engine_ns(ins, Engine::Vector, t) == doctest::Approx(600 / t.vector_ghz));  // N = 8: the floor
  ins.operands[1].dyn = {};
  CHECK(!sim::has_dynamic_operand(ins));
  CHECK(sim::engine_ns(ins, Engine::Vector, t) == doctest::Approx(64 / t.vector_ghz));  // max(MIN_II, 8)
  // N = 4096 > 600: the instruction's own cost.
  AccessPattern big = sbuf(DType::float32, 0, 128, 0, 4096), bigd = sbuf(DType::float32, 0, 128, 16384, 4096);
  bigd.dyn = isa::DynOffset{isa::DynOffset::Reg, DType::int32, 0, 0, 1, 16384, 65536};
  isa::Instruction b = make(Opcode::tensor_copy, {big, bigd});
  CHECK(sim::engine_ns(b, Engine::Vector, t) == doctest::Approx(4096 / t.vector_ghz));
}
