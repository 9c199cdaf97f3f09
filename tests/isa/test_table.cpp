// test_table.cpp - the instruction table's C++ view, the asm printer, target data and docs/isa.md.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "isa/doc.h"
#include "isa/program.h"
#include "isa/target.h"

using namespace nkisim::isa;

TEST_CASE("table rows: mnemonics, engines, operand slots") {
  const InstrInfo& tt = info(Opcode::tensor_tensor);
  CHECK(std::string(tt.mnemonic) == "tensor_tensor");
  CHECK(tt.default_engine == Engine::Vector);
  CHECK((tt.engines & E_G) != 0);
  CHECK((tt.engines & E_S) == 0);
  CHECK(tt.num_operands == 3);
  CHECK(std::string(tt.operands[2].name) == "data2");
  CHECK(tt.operands[0].memories == (M_SB | M_PS));
  const InstrInfo& ts = info(Opcode::tensor_scalar);
  CHECK(ts.num_operands == 4);
  CHECK_FALSE(ts.operands[2].required);
  CHECK(info(Opcode::activation).default_engine == Engine::Scalar);
  CHECK(info(Opcode::dma_copy).cost == CostClass::dma);
  CHECK(info(Opcode::sem_wait).num_operands == 0);
  for (int i = 0; i < kNumOpcodes; ++i) CHECK(parse_opcode(info(Opcode(i)).mnemonic) == Opcode(i));
  CHECK_FALSE(parse_opcode("nope").has_value());
}

TEST_CASE("ALU ops, activation functions and engines parse by their NKI names") {
  CHECK(parse_alu("add") == AluOp::add);
  CHECK(parse_alu("bitwise_xor") == AluOp::bitwise_xor);
  CHECK(alu_class(AluOp::right_shift) == AluClass::Bitvec);
  CHECK(alu_reduce_ok(AluOp::maximum));
  CHECK_FALSE(alu_reduce_ok(AluOp::power));
  CHECK(parse_act("exp") == ActFunc::exp);
  CHECK(act_name(ActFunc::gelu_apprx_tanh) == "gelu_apprx_tanh");
  CHECK(parse_engine("gpsimd") == Engine::GpSimd);
  CHECK(engine_name(Engine::Sync) == "sync");
  for (int i = 0; i < kNumAluOps; ++i) CHECK(parse_alu(alu_name(AluOp(i))) == AluOp(i));
  for (int i = 0; i < kNumActFuncs; ++i) CHECK(parse_act(act_name(ActFunc(i))) == ActFunc(i));
}

TEST_CASE("asm printer: operands, params, waits, signals, locations") {
  Program p;
  p.kernel_name = "k";
  p.num_semaphores = 21;
  Instruction ins;
  ins.op = Opcode::tensor_scalar;
  ins.engine = Engine::Vector;
  AccessPattern& d = ins.operands[0];
  d.mem = Memory::SBUF;
  d.dtype = DType::bfloat16;
  d.start_partition = 32;
  d.num_partitions = 32;
  d.offset = 0x400;
  d.num_dims = 2;
  d.dims[0] = {64, 4};
  d.dims[1] = {1, 16};
  AccessPattern& s = ins.operands[1];
  s.mem = Memory::HBM;
  s.dtype = DType::float32;
  s.num_partitions = 32;
  s.partition_stride = 1024;
  s.offset = 0x2000;
  s.num_dims = 1;
  s.dims[0] = {1, 64};
  ins.params.op0 = AluOp::multiply;
  ins.params.imm0 = 0.1f;
  ins.params.reverse1 = true;
  ins.waits = {{5, 2}, {7, 1}};
  ins.updates = {{1, 1}};
  ins.loc = p.add_location({"k.py", 12, 5});
  CHECK(p.add_location({"k.py", 12, 5}) == ins.loc);
  CHECK(print_instruction(ins) ==
        "tensor_scalar dst=sbuf:bfloat16@p32:32+0x400[[64,4],[1,16]] data=hbm:float32@0x2000[[1024,32],[1,64]] "
        "op0=multiply imm0=0.100000001 reverse1 wait=s5>=2,s7>=1 signal=s1+1 @L1");
  p.streams[size_t(Engine::Vector)].push_back(ins);
  std::string a = print_asm(p);
  CHECK(a.find(".loc L1 \"k.py\" 12 5\n") != std::string::npos);
  CHECK(a.find("\n.stream vector\n  tensor_scalar ") != std::string::npos);
}

TEST_CASE("targets carry the published numbers and accept overrides") {
  auto t1 = *find_target("trn1"), t2 = *find_target("trn2"), t3 = *find_target("trn3");
  CHECK(t1.vector_ghz == doctest::Approx(1.12));
  CHECK(t2.vector_ghz == doctest::Approx(0.96));
  CHECK(t3.vector_ghz == doctest::Approx(1.2));
  CHECK(t1.sbuf_partition_bytes == 192 * 1024);
  CHECK(t2.sbuf_partition_bytes == 224 * 1024);
  CHECK(t3.sbuf_partition_bytes == 256 * 1024);
  CHECK(t2.dma_engine_bytes_per_ns == 23);
  CHECK(t2.engine_ghz(Engine::Tensor) == doctest::Approx(2.4));
  CHECK(set_target_param(t2, "min_ii_cycles", 100));
  CHECK(t2.min_ii_cycles == 100);
  CHECK_FALSE(set_target_param(t2, "no_such_param", 1));
  CHECK_FALSE(find_target("trn9").has_value());
  CHECK(target_params().size() > 15);
}

TEST_CASE("every target parameter has a valid range that holds the built-in targets and is enforced") {
  for (const char* name : {"trn1", "trn2", "trn3"}) {
    const TargetDesc t = *find_target(name);
    for (const TargetParam& p : target_params()) {
      const double v = t.*(p.field);
      CHECK_MESSAGE((v >= p.lo && v <= p.hi && (!p.integer || v == double(int64_t(v)))), name, " ", p.name);
    }
  }
  TargetDesc t = *find_target("trn2");
  for (double bad : {0.0, -1.0, std::nan(""), 1.0 / 0.0, 1e30, 2.5})
    CHECK_THROWS_WITH_AS(set_target_param(t, "psum_banks", bad),
                         doctest::Contains("target parameter 'psum_banks' must be a whole number from 1 to 32"),
                         nkisim::Error);
  CHECK_THROWS_AS(set_target_param(t, "vector_ghz", 0), nkisim::Error);
  CHECK_THROWS_AS(set_target_param(t, "psum_partition_bytes", -1), nkisim::Error);
  CHECK(t.psum_banks == 8);  // a refused value leaves the target unchanged
  CHECK(set_target_param(t, "vector_ghz", 0.5));
}

TEST_CASE("check_program_fits: addresses, sizes and counts within the target, overflow-checked") {
  const TargetDesc t = *find_target("trn2");
  auto fits = [&](const Program& p) -> std::string {
    try {
      check_program_fits(p, t, "p.s");
      return "";
    } catch (const nkisim::Error& e) {
      CHECK(e.loc == nkisim::SourceLoc{"p.s"});
      return e.what();
    }
  };
  Program p;
  p.hbm_tensors.push_back({"t", HbmTensor::Kind::Input, DType::bfloat16, {2048}, 0, 4096, 0, -1, {}});
  CHECK(fits(p) == "");
  p.hbm_tensors[0].address = 0xfffffffffffff000ull;  // address + bytes wraps past 2^64
  CHECK(fits(p).starts_with("tensor 't': address 18446744073709547520 + 4096 bytes is past the end of the target's HBM"));
  p.hbm_tensors[0].address = 0;
  p.hbm_tensors[0].bytes = 65600;
  CHECK(fits(p) == "tensor 't': bytes=65600 but its shape and dtype take 4096 bytes");
  p.hbm_tensors[0].shape = {int64_t(1) << 32, int64_t(1) << 32};  // 2^64 elements wrap to 0
  p.hbm_tensors[0].bytes = 0;
  CHECK(fits(p).starts_with("tensor 't': the shape has more elements than the target's HBM holds (trn2 HBM capacity"));
  p.hbm_tensors[0].shape = {-1};
  CHECK(fits(p) == "tensor 't': negative dimension -1");
  p.hbm_tensors.clear();
  p.num_semaphores = 4294967295u;
  CHECK(fits(p) == "program declares 4294967295 semaphores; at most 65536 can be addressed");
  p.num_semaphores = 1;
  p.hbm_bytes = uint64_t(1) << 40;
  CHECK(fits(p) == "program declares .hbm_bytes 1099511627776 (trn2 HBM capacity 25769803776 bytes; "
                   "--param hbm_capacity_bytes=N raises it)");
}

TEST_CASE("docs/isa.md is generated from the table and up to date") {
  std::ifstream f(std::string(NKISIM_SOURCE_DIR) + "/docs/isa.md");
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK_MESSAGE(ss.str() == render_isa_markdown(), "docs/isa.md is stale: regenerate with build/nki-isa-doc > docs/isa.md");
}
