// test_verify.cpp - isa::verify: the hardware rules of one instruction on one target, and verify_program's
// located errors (the simulator's validation pass, nki-as and lowering all call them).
#include <doctest/doctest.h>

#include <string>

#include "isa/program.h"
#include "isa/target.h"
#include "isa/verify.h"

using namespace nkisim;
using namespace nkisim::isa;

namespace {
// A [np, f] SBUF (or PSUM) tile at byte `offset`, contiguous free dim.
AccessPattern tile(DType t, uint32_t np, uint32_t f, int64_t offset = 0, Memory m = Memory::SBUF) {
  AccessPattern ap;
  ap.mem = m;
  ap.dtype = t;
  ap.num_partitions = np;
  ap.offset = offset;
  ap.num_dims = 1;
  ap.dims[0] = ApDim{1, f};
  return ap;
}

Instruction make(Opcode op, Engine e, std::initializer_list<AccessPattern> operands) {
  Instruction ins;
  ins.op = op;
  ins.engine = e;
  int s = 0;
  for (const AccessPattern& ap : operands) ins.operands[size_t(s++)] = ap;
  return ins;
}

std::string message(const Instruction& ins, const char* target) {
  const std::optional<Violation> v = verify(ins, *find_target(target));
  return v ? v->message : "ok";
}
}  // namespace

TEST_CASE("verify: generation availability comes from the table's AVAIL column") {
  const Instruction exp = make(Opcode::exponential, Engine::Vector,
                               {tile(DType::float32, 128, 64, 0), tile(DType::float32, 128, 64, 256)});
  CHECK(message(exp, "trn1") == "exponential: not available on trn1 (trn3 only)");
  CHECK(message(exp, "trn2") == "exponential: not available on trn2 (trn3 only)");
  CHECK(message(exp, "trn3") == "ok");
  Instruction tr = make(Opcode::dma_transpose, Engine::Sync, {tile(DType::float32, 32, 64), tile(DType::float32, 64, 32, 256)});
  tr.params.axes = 10;
  tr.params.tdim0 = 64;
  tr.params.tdim1 = 32;
  CHECK(message(tr, "trn1") == "dma_transpose: not available on trn1 (trn2 and later)");
  CHECK(message(tr, "trn2") == "ok");
  tr.params.axes = 11;
  CHECK(message(tr, "trn2") == "dma_transpose: axes=11 is not a permutation of 2 to 4 dims");
}

TEST_CASE("verify: operand presence and memories, with the operand's slot") {
  const Instruction copy = make(Opcode::tensor_copy, Engine::Vector, {tile(DType::float32, 128, 8)});
  const std::optional<Violation> v = verify(copy, *find_target("trn2"));
  REQUIRE(v);
  CHECK(v->message == "tensor_copy: operand 'src' is missing");
  CHECK(v->slot == 1);
  const Instruction mm = make(Opcode::multiply_moving, Engine::Tensor,
                              {tile(DType::float32, 128, 512), tile(DType::bfloat16, 128, 512, 4096)});
  CHECK(message(mm, "trn2") == "multiply_moving: operand 'dst' must be in PSUM, but is in SBUF");
  const char* args[kMaxOperands] = {"dst", "moving"};
  const char* tensors[kMaxOperands] = {"acc", "x"};
  CHECK(verify(mm, *find_target("trn2"), args, tensors)->message ==
        "multiply_moving: operand 'dst' must be in PSUM, but 'acc' is in SBUF");
  const Instruction wide = make(Opcode::tensor_copy, Engine::Vector, {tile(DType::float32, 256, 8), tile(DType::float32, 128, 16)});
  CHECK(message(wide, "trn2") == "tensor_copy: operand 'dst': size of partition dimension 256 exceeds architecture "
                                 "limitation of 128");
}

TEST_CASE("verify: sizes, shapes and dtypes per instruction and target") {
  Instruction bn = make(Opcode::bn_stats, Engine::Vector, {tile(DType::float32, 128, 6, 8192), tile(DType::float32, 128, 512)});
  CHECK(message(bn, "trn2") == "ok");
  bn.operands[1] = tile(DType::float32, 128, 1024);
  CHECK(message(bn, "trn2") == "bn_stats: data has 1024 elements per partition; at most 512 (bn_stats_fmax)");
  bn.operands[1] = tile(DType::float32, 64, 512);
  CHECK(message(bn, "trn1") == "bn_stats: operand 'data' covers 64 partitions but 'dst' covers 128");

  // The matmul output: float32 (or bfloat16 on trn3), at most one PSUM bank of fp32 on trn1/trn2.
  Instruction mm = make(Opcode::multiply_moving, Engine::Tensor,
                        {tile(DType::bfloat16, 128, 512, 0, Memory::PSUM), tile(DType::bfloat16, 128, 512)});
  CHECK(message(mm, "trn2") == "multiply_moving: dst must be float32 on trn2, got bfloat16");
  CHECK(message(mm, "trn3") == "ok");
  mm.operands[0] = tile(DType::float32, 128, 1024, 0, Memory::PSUM);
  mm.operands[1] = tile(DType::bfloat16, 128, 1024);
  CHECK(message(mm, "trn2") == "multiply_moving: moving free size N=1024 exceeds 512 (gemm_moving_fmax: one PSUM bank of float32)");
  CHECK(message(mm, "trn3") == "ok");
  mm.operands[1] = tile(DType::int32, 128, 1024);
  CHECK(message(mm, "trn3") ==
        "multiply_moving: moving dtype int32 is not a Tensor Engine input dtype (expected float8_e4m3, float8_e5m2, "
        "float8_e4m3fn, bfloat16, float16, tfloat32 or float32)");

  Instruction tt = make(Opcode::tensor_tensor, Engine::Vector,
                        {tile(DType::float32, 128, 8), tile(DType::float32, 128, 8, 64), tile(DType::float32, 128, 4, 128)});
  CHECK(message(tt, "trn2") == "tensor_tensor: operand 'data2' has 128 partitions x 4 elements but 'dst' has 128 "
                               "partitions x 8 elements");
  Instruction ts = make(Opcode::tensor_scalar, Engine::Vector,
                        {tile(DType::float32, 128, 8), tile(DType::float32, 128, 8, 64), tile(DType::float32, 128, 1, 128)});
  CHECK(message(ts, "trn2") == "ok");
  ts.operands[2] = tile(DType::float32, 128, 2, 128);  // a per-partition operand is exactly (P, 1), as the SDK says
  CHECK(message(ts, "trn2") == "tensor_scalar: operand 'operand0' must be a [128, 1] tile (one value per partition), "
                               "got 128 partitions x 2 elements");

  tt.operands[2] = tile(DType::float32, 128, 8, 128);
  tt.params.op0 = AluOp::bitwise_and;
  CHECK(message(tt, "trn2") == "tensor_tensor: bitvec op 'bitwise_and' needs integer dtypes, but operand 'dst' is float32");
}

TEST_CASE("verify: memset's value fits dst's dtype; sendrecv's operands and gpsimd_dma size") {
  Instruction ms = make(Opcode::memset, Engine::Vector, {tile(DType::int32, 128, 8)});
  ms.params.imm0 = 7.0f;
  CHECK(message(ms, "trn2") == "ok");
  ms.params.imm0 = 0.5f;
  CHECK(message(ms, "trn2") == "memset: value 0.5 is not an integer but dst has dtype int32");
  ms.operands[0] = tile(DType::float8_e4m3fn_x4, 128, 8);
  CHECK(message(ms, "trn3") == "memset: dst has the packed MX dtype float8_e4m3fn_x4; only value 0 is allowed");
  ms.params.imm0 = 0.0f;
  CHECK(message(ms, "trn3") == "ok");

  Instruction sr = make(Opcode::sendrecv, Engine::GpSimd, {tile(DType::bfloat16, 128, 512), tile(DType::bfloat16, 128, 512, 1024)});
  CHECK(message(sr, "trn1") == "sendrecv: not available on trn1 (trn2 and later)");
  CHECK(message(sr, "trn2") == "ok");
  sr.params.gpsimd_dma = true;
  CHECK(message(sr, "trn2") == "ok");
  sr.operands[0] = tile(DType::bfloat16, 128, 513);
  sr.operands[1] = tile(DType::bfloat16, 128, 513, 2048);
  CHECK(message(sr, "trn2") == "sendrecv: dma_engine.gpsimd_dma moves at most 512 bytes per partition for 16-bit "
                               "dtypes, src has 1026");
  sr.operands[1] = tile(DType::float32, 128, 513, 2048);
  CHECK(message(sr, "trn2") == "sendrecv: src and dst must have the same dtype, got float32 and bfloat16");
}

TEST_CASE("verify: DGE modes against the engine that triggers the transfer") {
  Instruction dma = make(Opcode::dma_copy, Engine::Sync, {tile(DType::float32, 128, 8), tile(DType::float32, 128, 8, 64)});
  dma.params.dge_mode = 1;  // swdge
  CHECK(message(dma, "trn2") == "dma_copy: dge_mode=swdge (software DGE, the mode of an indirect access) builds descriptors on the gpsimd engine, not sync; a sync or scalar trigger needs dge_mode=hwdge");
  dma.engine = Engine::GpSimd;
  CHECK(message(dma, "trn2") == "ok");
  dma.params.dge_mode = 2;  // hwdge
  CHECK(message(dma, "trn1") == "dma_copy: dge_mode=hwdge (hardware DGE) needs trn2 or later, not trn1");
  dma.params.dge_mode = 0;
  dma.params.oob_skip = true;  // only run-time offsets can fall out of bounds
  CHECK(message(dma, "trn2") == "dma_copy: oob_mode.skip (oob_skip) needs an indirect access pattern (.ap() with "
                                "scalar_offset or vector_offset: ind != 0)");
}

TEST_CASE("verify_program: the first violation at the instruction's kernel line, else named by its stream") {
  Program p;
  Instruction bn = make(Opcode::bn_stats, Engine::Vector, {tile(DType::float32, 128, 6, 8192), tile(DType::float32, 128, 600)});
  p.streams[size_t(Engine::Vector)].push_back(bn);
  const TargetDesc t = *find_target("trn2");
  try {
    verify_program(p, t, "prog.s");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "vector instruction 0 (bn_stats): bn_stats: data has 600 elements per partition; at most 512 (bn_stats_fmax)");
    REQUIRE(e.loc);
    CHECK(e.loc->file == "prog.s");
  }
  p.streams[size_t(Engine::Vector)][0].loc = p.add_location(SourceLoc{"k.py", 12, 5});
  try {
    verify_program(p, t, "prog.s");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "bn_stats: data has 600 elements per partition; at most 512 (bn_stats_fmax)");
    REQUIRE(e.loc);
    CHECK(*e.loc == SourceLoc{"k.py", 12, 5});
  }
  p.streams[size_t(Engine::Vector)][0].operands[1] = tile(DType::float32, 128, 512);
  CHECK_NOTHROW(verify_program(p, t, "prog.s"));
}
