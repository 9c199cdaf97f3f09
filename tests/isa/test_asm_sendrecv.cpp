// test_asm_sendrecv.cpp - the sendrecv row (LNC=2, docs/lnc.md): its params (pipe, gpsimd_dma, sem, rimm)
// and operands survive the asm text and the binary exactly.
#include <doctest/doctest.h>

#include "isa/asm_parse.h"
#include "isa/binary.h"

using namespace nkisim::isa;

TEST_CASE("sendrecv: asm and binary round trips of its params and operands") {
  Program p;
  p.kernel_name = "sr";
  p.target = "trn2";
  p.num_semaphores = 12;
  Instruction ins;
  ins.op = Opcode::sendrecv;
  ins.engine = Engine::GpSimd;
  for (int s = 0; s < 2; ++s) {
    AccessPattern& ap = ins.operands[s];
    ap.mem = Memory::SBUF;
    ap.dtype = DType::bfloat16;
    ap.start_partition = 0;
    ap.num_partitions = 128;
    ap.offset = 1024 * s;
    ap.dims[ap.num_dims++] = ApDim{1, 256};
  }
  ins.params.pipe_id = 7;
  ins.params.gpsimd_dma = true;
  ins.params.sem = 9;
  ins.params.rimm = 3;
  ins.waits = {{2, 1}};
  ins.updates = {{4, 1}};
  p.streams[size_t(Engine::GpSimd)].push_back(ins);

  const std::string text = print_asm(p);
  const std::string line = print_instruction(ins);
  CHECK(line.find("sendrecv") != std::string::npos);
  CHECK(line.find("pipe=7") != std::string::npos);
  CHECK(line.find("gpsimd_dma") != std::string::npos);
  const Program from_text = parse_asm(text, "sr.nkiasm");
  const Program from_bin = decode_program(encode_program(p), "sr.nkibin");
  for (const Program* q : {&from_text, &from_bin}) {
    REQUIRE(q->streams[size_t(Engine::GpSimd)].size() == 1);
    const Instruction& r = q->streams[size_t(Engine::GpSimd)][0];
    CHECK(r.op == Opcode::sendrecv);
    CHECK(r.params.pipe_id == 7);
    CHECK(r.params.gpsimd_dma == true);
    CHECK(r.params.sem == 9);
    CHECK(r.params.rimm == 3);
    CHECK(r.operands[1].offset == 1024);
    CHECK(r.operands[0].dtype == DType::bfloat16);
    CHECK(print_instruction(r) == line);
  }
  CHECK(encode_program(from_text) == encode_program(p));
}
