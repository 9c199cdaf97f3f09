// test_asm_dma.cpp - the DMA parameters of isa/params.def (dge, oob_skip, ind*, axes, tdim*) and the new DMA
// slots (idx, base) survive the asm text and binary round trips, and print as documented.
#include <doctest/doctest.h>

#include <string>

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "isa/program.h"

using namespace nkisim::isa;

namespace {
AccessPattern ap(Memory m, DType t, uint32_t p0, uint32_t np, int64_t pstride, int64_t off, uint32_t f) {
  AccessPattern a;
  a.mem = m;
  a.dtype = t;
  a.start_partition = p0;
  a.num_partitions = np;
  a.partition_stride = pstride;
  a.offset = off;
  a.num_dims = 1;
  a.dims[0] = ApDim{1, f};
  return a;
}
}  // namespace

TEST_CASE("DMA parameters and slots round-trip through asm text and binary") {
  Program p;
  p.kernel_name = "dma_params";
  p.num_semaphores = 4;
  Instruction g;
  g.op = Opcode::dma_copy;
  g.engine = Engine::GpSimd;
  g.operands[0] = ap(Memory::SBUF, DType::float32, 0, 64, 0, 64, 8);
  g.operands[1] = ap(Memory::HBM, DType::float32, 0, 64, 0, 0x1000, 8);
  g.operands[2] = ap(Memory::SBUF, DType::uint32, 0, 64, 0, 0, 1);
  g.operands[3] = ap(Memory::HBM, DType::float32, 0, 1, 0, 0x1000, 1024);
  g.params.dge_mode = 1;
  g.params.oob_skip = true;
  g.params.ind_kind = 1;
  g.params.ind_opnds = 2;
  g.params.ind_stride = 8;
  g.params.ind_before = 16;
  g.params.ind_size = 1024;
  p.streams[size_t(Engine::GpSimd)].push_back(g);
  Instruction t;
  t.op = Opcode::dma_transpose;
  t.engine = Engine::Sync;
  t.operands[0] = ap(Memory::SBUF, DType::bfloat16, 0, 32, 0, 0, 32);
  t.operands[1] = ap(Memory::HBM, DType::bfloat16, 0, 2, 512, 0x2000, 512);
  t.params.dge_mode = 2;
  t.params.axes = 3120;
  t.params.tdim0 = 2;
  t.params.tdim1 = 4;
  t.params.tdim2 = 8;
  t.params.tdim3 = 32;
  p.streams[size_t(Engine::Sync)].push_back(t);
  Instruction c;
  c.op = Opcode::dma_compute;
  c.engine = Engine::Sync;
  c.operands[0] = ap(Memory::SBUF, DType::float32, 0, 128, 0, 0, 64);
  c.operands[1] = c.operands[0];
  c.operands[2] = ap(Memory::HBM, DType::float32, 0, 128, 64, 0x4000, 64);
  c.operands[3] = ap(Memory::HBM, DType::bfloat16, 0, 128, 64, 0x8000, 64);
  c.params.dge_mode = 3;
  p.streams[size_t(Engine::Sync)].push_back(c);

  const std::string text = print_asm(p);
  CHECK(text.find("dge=1") != std::string::npos);
  CHECK(text.find(" oob_skip") != std::string::npos);
  CHECK(text.find("ind=1 ind_opnds=2 ind_stride=8 ind_before=16 ind_size=1024") != std::string::npos);
  CHECK(text.find("axes=3120 tdim0=2 tdim1=4 tdim2=8 tdim3=32") != std::string::npos);
  CHECK(text.find("idx=sbuf:") != std::string::npos);
  CHECK(text.find("base=hbm:") != std::string::npos);
  CHECK(text.find("src2=hbm:bfloat16@") != std::string::npos);
  const Program from_text = parse_asm(text, "t.s");
  const Program from_bin = decode_program(encode_program(p), "t.nkibin");
  for (const Program* q : {&from_text, &from_bin}) {
    CHECK(q->streams == p.streams);
    CHECK(print_asm(*q) == text);
  }
}
