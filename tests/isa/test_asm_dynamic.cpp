// test_asm_dynamic.cpp - dynamic offsets of on-chip operands (isa::DynOffset, docs/dynamic-offsets.md) through
// the asm text and binary round trips, their text form, the located parse / decode errors, and the
// dependency helpers dyn_source / dyn_footprint.
#include <doctest/doctest.h>

#include <string>

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "isa/program.h"

using namespace nkisim::isa;

namespace {
AccessPattern sb(DType t, uint32_t np, int64_t off, uint32_t f) {
  AccessPattern a;
  a.mem = Memory::SBUF;
  a.dtype = t;
  a.num_partitions = np;
  a.offset = off;
  a.num_dims = 1;
  a.dims[0] = ApDim{1, f};
  return a;
}

Program dyn_program() {
  Program p;
  p.kernel_name = "dyn";
  p.num_semaphores = 5;
  Instruction c;
  c.op = Opcode::tensor_copy;
  c.engine = Engine::Vector;
  c.operands[0] = sb(DType::float32, 128, 0x440, 32);
  c.operands[1] = sb(DType::float32, 128, 0, 32);
  c.operands[1].dyn = DynOffset{DynOffset::Sbuf, DType::uint16, 3, 0x400, 32, 0, 0x400};
  p.streams[size_t(Engine::Vector)].push_back(c);
  Instruction t;
  t.op = Opcode::tensor_tensor;
  t.engine = Engine::GpSimd;
  t.operands[0] = sb(DType::bfloat16, 64, 0x800, 16);
  t.operands[0].dyn = DynOffset{DynOffset::Reg, DType::int32, 7, 0, -16, 0x800, 0x880};
  t.operands[1] = sb(DType::bfloat16, 64, 0x900, 16);
  t.operands[2] = t.operands[1];
  t.params.op0 = AluOp::add;
  p.streams[size_t(Engine::GpSimd)].push_back(t);
  return p;
}

std::string parse_error(const std::string& text) {
  try {
    parse_asm(text, "t.s");
  } catch (const nkisim::Error& e) {
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("dynamic offsets round-trip through asm text and binary, and print as documented") {
  const Program p = dyn_program();
  const std::string text = print_asm(p);
  CHECK(text.find("src=sbuf:float32@p0:128+0x0[[1,32]]dyn(sbuf:uint16@p3+0x400,32,0x0,0x400)") != std::string::npos);
  CHECK(text.find("dst=sbuf:bfloat16@p0:64+0x800[[1,16]]dyn(r7,-16,0x800,0x880)") != std::string::npos);
  CHECK(text.find("data1=sbuf:bfloat16@p0:64+0x900[[1,16]] ") != std::string::npos);  // static: no suffix
  const Program from_text = parse_asm(text, "t.s");
  const Program from_bin = decode_program(encode_program(p), "t.nkibin");
  for (const Program* q : {&from_text, &from_bin}) {
    CHECK(q->streams == p.streams);
    CHECK(print_asm(*q) == text);
  }
  CHECK(encode_program(from_text) == encode_program(p));
}

TEST_CASE("dynamic offsets: located asm parse errors") {
  const std::string h = ".semaphores 5\n.stream vector\n";
  const std::string d = "dst=sbuf:float32@p0:1+0x0[[1,4]]";
  auto line = [&](const std::string& src) { return h + "  tensor_copy " + d + " src=" + src + "\n"; };
  CHECK(parse_error(line("hbm:float32@0x0[[0,1],[1,4]]dyn(r1,4,0x0,0x10)")) ==
        "3:80: a dynamic offset dyn(...) needs an on-chip (sbuf or psum) pattern");
  CHECK(parse_error(line("sbuf:float32@p0:1+0x0[[1,4]]dyn(sbuf:float32@p0+0x0,4,0x0,0x10)")) ==
        "3:89: a dynamic offset needs an integer dtype, got 'float32'");
  CHECK(parse_error(line("sbuf:float32@p0:1+0x0[[1,4]]dyn(x1,4,0x0,0x10)")) ==
        "3:84: a dynamic offset source must be sbuf:DTYPE@pP+ADDR or a register rN, got 'x1'");
  CHECK(parse_error(line("sbuf:float32@p0:1+0x0[[1,4]]dyn(r1,4,0x0,0x10")) ==
        "3:97: malformed access pattern: expected ')' to close dyn(...), found the end of the access pattern");
  CHECK(parse_error(line("sbuf:float32@p0:1+0x0[[1,4]]dyx(r1,4,0x0,0x10)")) ==
        "3:80: malformed access pattern: expected the end of the access pattern, found 'd'");
}

TEST_CASE("dynamic offsets: located binary decode errors") {
  Program p = dyn_program();
  std::vector<uint8_t> b = encode_program(p);
  auto decode_error = [](const std::vector<uint8_t>& bytes) {
    try {
      decode_program(bytes, "t.nkibin");
    } catch (const nkisim::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // The tensor_copy's src record ends with kind 1, dtype, partition, address, stride, lo, hi: find it by its
  // unique byte pattern (kind 1, dtype uint16, partition 3, address 0x400).
  const uint8_t u16 = uint8_t(DType::uint16);
  size_t at = 0;
  for (size_t i = 0; i + 8 < b.size(); ++i)
    if (b[i] == 1 && b[i + 1] == u16 && b[i + 2] == 3 && b[i + 3] == 0 && b[i + 4] == 0 && b[i + 5] == 4 &&
        b[i + 6] == 0 && b[i + 7] == 0) {
      at = i;
      break;
    }
  REQUIRE(at > 0);
  std::vector<uint8_t> c = b;
  c[at + 1] = uint8_t(DType::float32);
  CHECK(decode_error(c) == "dynamic offset dtype float32 is not an integer type (at byte " + std::to_string(at + 1) + ")");
  c = b;
  c[at + 7] = 0x80;  // address high byte: negative
  CHECK(decode_error(c) == "negative dynamic offset address -2147482624 (at byte " + std::to_string(at + 4) + ")");
  c = b;
  c[at + 15] = 0xff;  // lo high byte
  CHECK(decode_error(c) == "negative dynamic offset bound -16777216 (at byte " + std::to_string(at + 12) + ")");
  // An HBM operand with a dynamic offset: only on-chip operands have one.
  Program h = dyn_program();
  Instruction dma;
  dma.op = Opcode::dma_copy;
  dma.engine = Engine::Sync;
  dma.operands[0] = sb(DType::float32, 1, 0, 4);
  dma.operands[1].mem = Memory::HBM;
  dma.operands[1].num_partitions = 1;
  dma.operands[1].num_dims = 1;
  dma.operands[1].dims[0] = ApDim{1, 4};
  dma.operands[1].dyn = DynOffset{DynOffset::Reg, DType::int32, 1, 0, 4, 0, 16};
  h.streams[size_t(Engine::Sync)].push_back(dma);
  CHECK(decode_error(encode_program(h)).find("HBM operand with a dynamic offset (only on-chip operands have one) (at byte ") == 0);
}

TEST_CASE("dyn_source and dyn_footprint: what dependency analysis tracks for a dynamic operand") {
  const Program p = dyn_program();
  const AccessPattern& src = p.streams[size_t(Engine::Vector)][0].operands[1];
  const AccessPattern s = dyn_source(src);
  CHECK(s.mem == Memory::SBUF);
  CHECK(s.dtype == DType::uint16);
  CHECK(s.start_partition == 3);
  CHECK(s.num_partitions == 1);
  CHECK(s.offset == 0x400);
  CHECK(s.num_dims == 0);
  const AccessPattern f = dyn_footprint(src);
  CHECK(f.mem == Memory::SBUF);
  CHECK(f.dtype == DType::uint8);
  CHECK(f.num_partitions == 128);
  CHECK(f.offset == 0);
  CHECK(f.num_dims == 1);
  CHECK(f.dims[0] == ApDim{1, 0x400});
  CHECK(!dyn_source(p.streams[size_t(Engine::GpSimd)][0].operands[0]).present());  // a register offset
  const AccessPattern& plain = p.streams[size_t(Engine::GpSimd)][0].operands[1];
  CHECK(dyn_footprint(plain) == plain);
}
