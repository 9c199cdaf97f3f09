// test_sim_errors.cpp - run-time errors: deadlock, out-of-bounds access, bad operands and inputs.
#include <doctest/doctest.h>

#include <string>

#include "sim_test_util.h"

using namespace simtest;

namespace {
// Runs and returns the Error (fails the test if nothing is thrown).
Error run_error(const isa::Program& p, const std::vector<sim::HostArray>& in = {}) {
  try {
    sim::simulate(p, in);
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected an nkisim::Error");
  return Error("");
}
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
}  // namespace

TEST_CASE("deadlock names the engine, semaphore, wanted and actual value, at the waiting instruction") {
  Builder b;
  auto& u = b.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 1, 0, 4)}));
  u.updates.push_back({2, 1});
  auto& w = b.add(Engine::Scalar, make(Opcode::sem_wait, {}));
  w.waits.push_back({2, 3});
  w.loc = b.loc("kernel.py", 17, 5);
  Error e = run_error(b.p);
  CHECK(std::string(e.what()) == "deadlock: scalar waits for semaphore 2 >= 3 (value is 1)");
  REQUIRE(e.loc);
  CHECK(e.loc->file == "kernel.py");
  CHECK(e.loc->line == 17);
  CHECK(e.loc->col == 5);
}

TEST_CASE("mutual waits deadlock") {
  Builder b;
  auto& a = b.add(Engine::Vector, make(Opcode::sem_wait, {}));
  a.waits.push_back({0, 1});
  a.updates.push_back({1, 1});
  auto& c = b.add(Engine::GpSimd, make(Opcode::sem_wait, {}));
  c.waits.push_back({1, 1});
  c.updates.push_back({0, 1});
  CHECK(starts_with(run_error(b.p).what(), "deadlock: vector waits for semaphore 0 >= 1 (value is 0)"));
}

TEST_CASE("out-of-range accesses are located errors naming opcode and operand") {
  auto t = trn2();
  const int64_t sb = int64_t(t.sbuf_partition_bytes);
  Builder b;
  size_t out = b.output("y", DType::float32, {1, 8});
  uint32_t loc = b.loc("k.py", 9, 3);

  SUBCASE("SBUF bytes") {
    auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(out), sbuf(DType::float32, 0, 1, sb - 8, 8)}));
    ins.loc = loc;
    Error e = run_error(b.p);
    CHECK(starts_with(e.what(), "dma_copy: operand 'src' reads outside SBUF partition bytes [0, " +
                                    std::to_string(sb) + ")"));
    REQUIRE(e.loc);
    CHECK(e.loc->line == 9);
  }
  SUBCASE("SBUF partitions") {
    auto& ins = b.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 120, 16, 0, 8)}));
    ins.loc = loc;
    CHECK(starts_with(run_error(b.p).what(), "memset: operand 'dst' writes outside SBUF partitions [0, 128)"));
  }
  SUBCASE("negative stride walking below byte 0") {
    b.add(Engine::Vector, make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 1, 0, 8),
                                                     onchip(isa::Memory::SBUF, DType::float32, 0, 1, 8, {{-1, 8}})}));
    CHECK(starts_with(run_error(b.p).what(), "tensor_copy: operand 'src' reads outside SBUF partition bytes"));
  }
  SUBCASE("PSUM") {
    b.add(Engine::Vector, make(Opcode::memset, {psum(DType::float32, 0, 1, int64_t(t.psum_partition_bytes), 1)}));
    CHECK(starts_with(run_error(b.p).what(), "memset: operand 'dst' writes outside PSUM partition bytes"));
  }
  SUBCASE("HBM") {
    b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, int64_t(b.p.hbm_bytes) - 4, 8, 1, {{1, 8}}),
                                                sbuf(DType::float32, 0, 1, 0, 8)}));
    CHECK(starts_with(run_error(b.p).what(), "dma_copy: operand 'dst' writes outside HBM bytes [0, "));
  }
}

TEST_CASE("operands and engines are checked against the instruction table") {
  Builder b;
  SUBCASE("wrong engine") {
    b.add(Engine::Vector, make(Opcode::activation, {sbuf(DType::float32, 0, 1, 0, 8), sbuf(DType::float32, 0, 1, 64, 8)}));
    CHECK(std::string(run_error(b.p).what()) == "activation: cannot run on the vector engine");
  }
  SUBCASE("missing operand") {
    b.add(Engine::Vector, make(Opcode::tensor_tensor, {sbuf(DType::float32, 0, 1, 0, 8), sbuf(DType::float32, 0, 1, 64, 8)}));
    CHECK(std::string(run_error(b.p).what()) == "tensor_tensor: operand 'data2' is missing");
  }
  SUBCASE("memory not allowed") {
    b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 1, 0, 8), psum(DType::float32, 0, 1, 0, 8)}));
    CHECK(std::string(run_error(b.p).what()) == "dma_copy: operand 'src' must be in HBM or SBUF, but is in PSUM");
  }
  SUBCASE("shape mismatch") {
    b.add(Engine::Vector, make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 2, 0, 8), sbuf(DType::float32, 0, 1, 64, 8)}));
    CHECK(std::string(run_error(b.p).what()) ==
          "tensor_copy: operand 'src' has 1 partitions x 8 elements but 'dst' has 2 partitions x 8 elements");
  }
  SUBCASE("dma element counts") {
    b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 2, 0, 8), sbuf(DType::float32, 0, 2, 64, 7)}));
    CHECK(std::string(run_error(b.p).what()) == "dma_copy: operand 'dst' has 2 x 8 = 16 elements but 'src' has 2 x 7 = 14");
  }
  SUBCASE("bitvec op on floats") {
    auto ins = make(Opcode::tensor_tensor, {sbuf(DType::float32, 0, 1, 0, 8), sbuf(DType::float32, 0, 1, 64, 8),
                                            sbuf(DType::float32, 0, 1, 128, 8)});
    ins.params.op0 = isa::AluOp::bitwise_and;
    b.add(Engine::Vector, ins);
    CHECK(std::string(run_error(b.p).what()) ==
          "tensor_tensor: bitvec op 'bitwise_and' needs integer dtypes, but operand 'dst' is float32");
  }
  SUBCASE("semaphore out of range") {
    b.add(Engine::Sync, make(Opcode::sem_wait, {})).waits.push_back({9, 1});
    CHECK(std::string(run_error(b.p).what()) == "sem_wait: waits on semaphore 9 but the program has 8");
  }
  SUBCASE("DMA queue out of range") {
    auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 1, 0, 8), sbuf(DType::float32, 0, 1, 64, 8)}));
    ins.params.dma_queue = 16;
    CHECK(std::string(run_error(b.p).what()) == "dma_copy: DMA queue 16 out of range [0, 16)");
  }
}

TEST_CASE("inputs must match the program's input tensors") {
  Builder b;
  b.input("a", DType::float32, {2, 3});
  b.p.kernel_name = "k";
  CHECK(std::string(run_error(b.p).what()) == "kernel 'k' takes 1 input tensor but 0 were given");
  CHECK(std::string(run_error(b.p, {f32_array({3, 2}, std::vector<float>(6))}).what()) ==
        "input 0 ('a'): expected float32 [2, 3], got float32 [3, 2]");
}

TEST_CASE("unknown target") {
  Builder b;
  b.p.target = "trn9";
  CHECK(std::string(run_error(b.p).what()) == "unknown target 'trn9'");
}
