// test_control_flow.cpp - sequencer registers and dynamic control flow (sim/exec_control_regs.cpp,
// sim/scheduler_control.cpp): register semantics, loops, register-relative waits, the loop budget, the
// validation messages, closed-form timing, and the asm/binary round trip of the new instructions.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "sim_test_util.h"

using namespace simtest;

namespace {
constexpr uint16_t kImm = 65535;  // rs1: use rimm

isa::Instruction reg_set(uint16_t rd, int32_t v) {
  isa::Instruction i = make(Opcode::reg_set, {});
  i.params.rd = rd;
  i.params.rimm = v;
  return i;
}
isa::Instruction reg_alu(uint16_t rd, uint16_t rs0, isa::AluOp op, uint16_t rs1, int32_t imm = 0) {
  isa::Instruction i = make(Opcode::reg_alu, {});
  i.params.rd = rd;
  i.params.rs0 = rs0;
  i.params.op0 = op;
  i.params.rs1 = rs1;
  i.params.rimm = imm;
  return i;
}
isa::Instruction branch(int32_t target, isa::AluOp op = isa::AluOp::bypass, uint16_t rs0 = 0, uint16_t rs1 = kImm,
                        int32_t imm = 0) {
  isa::Instruction i = make(Opcode::branch, {});
  i.params.target = target;
  i.params.op0 = op;
  i.params.rs0 = rs0;
  i.params.rs1 = rs1;
  i.params.rimm = imm;
  return i;
}
isa::Instruction reg_store(AccessPattern dst, uint16_t rs0) {
  isa::Instruction i = make(Opcode::reg_store, {dst});
  i.params.rs0 = rs0;
  return i;
}
isa::Instruction reg_load(AccessPattern src, uint16_t rd) {
  isa::Instruction i = make(Opcode::reg_load, {src});
  i.params.rd = rd;
  return i;
}

int32_t out_i32(const sim::Result& r, size_t k = 0) {
  int32_t v;
  std::memcpy(&v, r.outputs.at(k).data.data(), 4);
  return v;
}

sim::Result run(const isa::Program& p, const std::vector<sim::HostArray>& in = {}, bool functional = false,
                uint64_t budget = 1000000) {
  sim::Options o;
  o.functional = functional;
  o.max_loop_iterations = budget;
  return sim::simulate(p, in, o);
}

std::string run_error(const isa::Program& p, bool functional = false, uint64_t budget = 1000000) {
  try {
    run(p, {}, functional, budget);
  } catch (const Error& e) {
    return (e.loc ? std::to_string(e.loc->line) + ": " : std::string("?: ")) + e.what();
  }
  return "no error";
}

sim::HostArray scalar_array(DType t, uint32_t bits) {
  sim::HostArray a;
  a.dtype = t;
  a.shape = {1, 1};
  a.data.resize(isa::dtype_size(t));
  std::memcpy(a.data.data(), &bits, a.data.size());
  return a;
}
}  // namespace

TEST_CASE("registers: int32 ALU with wrap-around, compares, copies, store of the low bits") {
  struct Case {
    isa::AluOp op;
    int32_t a, b, want;
  };
  const Case cases[] = {
      {isa::AluOp::add, 2147483647, 1, INT32_MIN}, {isa::AluOp::subtract, 5, 7, -2},
      {isa::AluOp::multiply, 65536, 65536, 0},     {isa::AluOp::maximum, -3, 2, 2},
      {isa::AluOp::minimum, -3, 2, -3},            {isa::AluOp::bitwise_xor, 0xff, 0x0f, 0xf0},
      {isa::AluOp::left_shift, 1, 31, INT32_MIN},  {isa::AluOp::right_shift, -1, 28, 15},
      {isa::AluOp::less, -1, 0, 1},                {isa::AluOp::greater_equal, -1, 0, 0},
      {isa::AluOp::not_equal, 4, 4, 0},            {isa::AluOp::logical_and, 3, 0, 0},
      {isa::AluOp::bypass, 9, 1234, 9},
  };
  for (const Case& c : cases)
    for (bool functional : {false, true}) {
      CAPTURE(isa::alu_name(c.op));
      Builder b;
      size_t out = b.output("out", DType::int32, {1, 1});
      b.add(Engine::Vector, reg_set(1, c.a));
      b.add(Engine::Vector, reg_set(2, c.b));
      b.add(Engine::Vector, reg_alu(3, 1, c.op, 2));
      b.add(Engine::Vector, reg_store(b.whole(out), 3));
      CHECK(out_i32(run(b.p, {}, functional)) == c.want);
    }
  // The immediate form and storing into a narrower dtype (the low bytes).
  Builder b;
  size_t out = b.output("out", DType::int16, {1, 1});
  b.add(Engine::Sync, reg_set(0, 0x12345));
  b.add(Engine::Sync, reg_alu(1, 0, isa::AluOp::add, kImm, 3));
  b.add(Engine::Sync, reg_store(b.whole(out), 1));
  sim::Result r = run(b.p);
  int16_t v;
  std::memcpy(&v, r.outputs[0].data.data(), 2);
  CHECK(v == int16_t(0x2348));
}

TEST_CASE("registers: reg_load sign-extends signed integers, zero-extends the rest") {
  struct Case {
    DType t;
    uint32_t bits;
    int32_t want;
  };
  const Case cases[] = {{DType::int8, 0xfd, -3},        {DType::uint8, 0xfa, 250},
                        {DType::int16, 0x8000, -32768}, {DType::float32, 0x3f800000, 0x3f800000},
                        {DType::uint32, 0xffffffff, -1}};
  for (const Case& c : cases) {
    CAPTURE(isa::dtype_name(c.t));
    Builder b;
    size_t in = b.input("x", c.t, {1, 1});
    size_t out = b.output("out", DType::int32, {1, 1});
    b.add(Engine::Scalar, reg_load(b.whole(in), 5));
    b.add(Engine::Scalar, reg_store(b.whole(out), 5));
    CHECK(out_i32(run(b.p, {scalar_array(c.t, c.bits)})) == c.want);
  }
}

TEST_CASE("branch: a counted loop in one stream, and its closed-form time") {
  // r0 = 5; top: if r0 <= 0 goto exit; r0 -= 1; r1 += 3; goto top; exit: out = r1
  Builder b;
  size_t out = b.output("out", DType::int32, {1, 1});
  b.add(Engine::Sync, reg_set(0, 5));
  b.add(Engine::Sync, branch(5, isa::AluOp::less_equal, 0, kImm, 0));
  b.add(Engine::Sync, reg_alu(0, 0, isa::AluOp::subtract, kImm, 1));
  b.add(Engine::Sync, reg_alu(1, 1, isa::AluOp::add, kImm, 3));
  b.add(Engine::Sync, branch(1));
  b.add(Engine::Sync, reg_store(b.whole(out), 1));
  for (bool functional : {false, true}) CHECK(out_i32(run(b.p, {}, functional)) == 15);
  // 1 reg_set + 5 x (branch, alu, alu, branch) + the exit branch = 22 control instructions, then the
  // reg_store (control + the HBM access): control_cycles / sync_ghz each, + dma_fixed_ns.
  const isa::TargetDesc t = *isa::find_target("trn2");
  sim::Result r = run(b.p);
  const double ctl = t.control_cycles / t.sync_ghz;
  CHECK(r.total_ns == doctest::Approx(23 * ctl + t.dma_fixed_ns).epsilon(1e-12));
  CHECK(r.engines["sync"].instructions == 23);
}

TEST_CASE("sem_wait_reg: a producer loop and a consumer loop in lock step") {
  // Vector stores i+1 into an int32 SBUF tile 3 times (signal s1 each); GpSimd waits s1 >= i*1 + 1 and
  // shifts the tile into a row; Vector waits for GpSimd's copy of the previous iteration (s2 >= i*1 + 0)
  // before overwriting the tile. out = [1, 2, 3].
  Builder b;
  size_t out = b.output("out", DType::float32, {1, 3});
  AccessPattern tile = sbuf(DType::float32, 0, 1, 0, 1);
  auto loop = [&](Engine e, auto&& body) {
    b.add(e, reg_set(0, 0));  // i (also the iteration counter here)
    const int32_t top = int32_t(b.p.streams[int(e)].size());
    b.add(e, branch(0, isa::AluOp::greater_equal, 0, kImm, 3));
    const size_t head_at = b.p.streams[int(e)].size() - 1;
    body();
    b.add(e, reg_alu(0, 0, isa::AluOp::add, kImm, 1));
    b.add(e, branch(top));
    b.p.streams[int(e)][head_at].params.target = int32_t(b.p.streams[int(e)].size());
  };
  loop(Engine::Vector, [&] {
    isa::Instruction w = make(Opcode::sem_wait_reg, {});
    w.params.sem = 2;
    w.params.rs0 = 0;
    w.params.rmul = 1;
    w.params.rimm = 0;
    b.add(Engine::Vector, w);
    b.add(Engine::Vector, reg_alu(1, 0, isa::AluOp::add, kImm, 1));  // r1 = i + 1, stored as int32
    AccessPattern tile_i = tile;
    tile_i.dtype = DType::int32;
    isa::Instruction s = reg_store(tile_i, 1);
    s.updates.push_back({1, 1});
    b.add(Engine::Vector, s);
  });
  loop(Engine::GpSimd, [&] {
    isa::Instruction w = make(Opcode::sem_wait_reg, {});
    w.params.sem = 1;
    w.params.rs0 = 0;
    w.params.rmul = 1;
    w.params.rimm = 1;
    b.add(Engine::GpSimd, w);
    AccessPattern tile_i = tile;
    tile_i.dtype = DType::int32;
    // row[0:2] = row[1:3], row[2] = float(tile): a shift register, so the iterations land in order.
    isa::Instruction sh = make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 1, 64, 2), sbuf(DType::float32, 0, 1, 68, 2)});
    b.add(Engine::GpSimd, sh);
    isa::Instruction cp = make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 1, 72, 1), tile_i});
    cp.updates.push_back({2, 1});
    b.add(Engine::GpSimd, cp);
  });
  isa::Instruction st = make(Opcode::dma_copy, {b.whole(out), sbuf(DType::float32, 0, 1, 64, 3)});
  st.waits.push_back({2, 3});
  b.add(Engine::Sync, st);
  for (bool functional : {false, true}) {
    sim::Result r = run(b.p, {}, functional);
    float v[3];
    std::memcpy(v, r.outputs[0].data.data(), 12);
    CHECK(v[0] == 1.0f);
    CHECK(v[1] == 2.0f);
    CHECK(v[2] == 3.0f);
  }
}

TEST_CASE("an endless loop stops at the budget with a located error (timed and functional)") {
  Builder b;
  isa::Instruction& br = b.add(Engine::GpSimd, branch(0));
  br.loc = b.loc("kernel.py", 12, 5);
  for (bool functional : {false, true})
    CHECK(run_error(b.p, functional, 1000) ==
          "12: dynamic loop: the gpsimd engine took more than 1000 branches (raise the limit with "
          "--max-loop-iterations)");
}

TEST_CASE("validation: registers, branch targets, ALU ops, single-element operands, semaphores") {
  auto one = [](isa::Instruction ins, Engine e = Engine::Sync) {
    Builder b;
    b.tensor("x", isa::HbmTensor::Kind::Internal, DType::int32, {1, 2});
    ins.loc = b.loc("k.py", 3);
    b.add(e, std::move(ins));
    return run_error(b.p);
  };
  CHECK(one(reg_set(64, 1)) == "3: reg_set: register rd=64 out of range [0, 64)");
  CHECK(one(reg_alu(1, 70, isa::AluOp::add, kImm)) == "3: reg_alu: register rs0=70 out of range [0, 64)");
  CHECK(one(reg_alu(1, 2, isa::AluOp::divide, kImm)) == "3: reg_alu: op0=divide is not a register ALU operation");
  CHECK(one(branch(9)) == "3: branch: target 9 outside the stream [0, 1]");
  CHECK(one(reg_load(hbm(DType::int32, 0, 2, 1, {{1, 2}}), 1)) ==
        "3: reg_load: operand 'src' must be a single element of at most 32 bits, got 2 elements of int32");
  isa::Instruction w = make(Opcode::sem_wait_reg, {});
  w.params.sem = 99;
  CHECK(one(w) == "3: sem_wait_reg: waits on semaphore 99 but the program has 8");
  w.params.sem = 3;
  w.params.rimm = 2;
  CHECK(one(w, Engine::Tensor) == "3: deadlock: tensor waits for semaphore 3 >= 2 (value is 0)");
}

TEST_CASE("asm and binary round trip of the register and branch instructions") {
  Builder b;
  size_t in = b.input("x", DType::int32, {1, 1});
  b.add(Engine::Scalar, reg_load(b.whole(in), 7));
  b.add(Engine::Scalar, reg_set(3, -42));
  b.add(Engine::Scalar, branch(5, isa::AluOp::less, 3, 7));
  b.add(Engine::Scalar, reg_alu(3, 3, isa::AluOp::add, kImm, 2));
  b.add(Engine::Scalar, branch(2));
  isa::Instruction w = make(Opcode::sem_wait_reg, {});
  w.params.sem = 4;
  w.params.rs0 = 3;
  w.params.rmul = 6;
  w.params.rimm = -5;
  b.add(Engine::Scalar, w);
  b.add(Engine::Scalar, reg_store(sbuf(DType::int32, 3, 1, 128, 1), 3));
  const std::string text = isa::print_asm(b.p);
  CHECK(text.find("  branch op0=less rs0=3 rs1=7 target=5\n") != std::string::npos);
  CHECK(text.find("  reg_set rd=3 rimm=-42\n") != std::string::npos);
  CHECK(text.find("  sem_wait_reg rs0=3 rimm=-5 rmul=6 sem=4\n") != std::string::npos);
  CHECK(isa::parse_asm(text, "p.s") == b.p);
  CHECK(isa::decode_program(isa::encode_program(b.p), "p.bin") == b.p);
}

TEST_CASE("big programs: a forward branch past chunks not compiled yet, and an error in a skipped chunk") {
  // 70,000 Vector instructions (the threaded preparation, shared by the event loop): a branch over the first
  // 60,000 copies. The threaded run must time it as the serial one does, and report an invalid instruction
  // the branch skips (validation covers every instruction) as the serial one does.
  auto build = [](bool bad) {
    Builder b;
    b.add(Engine::Vector, branch(60000));
    for (uint32_t i = 1; i < 70000; ++i) {
      auto v = make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, 4096, 64), sbuf(DType::float32, 0, 128, 0, 64)});
      if (bad && i == 30000) v.operands[0].offset = 1 << 30;  // out of SBUF
      b.add(Engine::Vector, v);
    }
    return b.p;
  };
  sim::Options o;
  o.timing_only = true;
  sim::Options serial = o;
  serial.parallel = false;
  const isa::Program p = build(false);
  const sim::Result a = sim::simulate(p, std::vector<sim::HostArray>{}, o);
  const sim::Result s = sim::simulate(p, std::vector<sim::HostArray>{}, serial);
  CHECK(a.total_ns == s.total_ns);
  CHECK(a.engines.at("vector").instructions == 10001);  // the branch and copies 60000..69999
  CHECK(s.engines.at("vector").instructions == 10001);
  auto error = [](const isa::Program& q, const sim::Options& opts) {
    try {
      sim::simulate(q, std::vector<sim::HostArray>{}, opts);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const isa::Program bad = build(true);
  const std::string want = error(bad, serial);
  CHECK(want.find("tensor_copy") != std::string::npos);
  CHECK(error(bad, o) == want);
}
