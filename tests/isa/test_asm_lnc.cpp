// test_asm_lnc.cpp - LNC=2 program files (docs/lnc.md, docs/asm.md, docs/binary-format.md): two cores'
// programs survive the '.core' assembly text and the binary's CORE sections exactly; single-core files are
// unchanged; every malformed multi-core file is an exact error.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "isa/asm_parse.h"
#include "isa/binary.h"

using namespace nkisim;
using namespace nkisim::isa;

namespace {

Program core_program(int c) {
  Program p;
  p.kernel_name = "lnc_k";
  p.target = "trn2";
  p.num_semaphores = 11 + uint32_t(c);
  p.hbm_bytes = 0x2000;
  HbmTensor t;
  t.name = "a_input";
  t.kind = HbmTensor::Kind::Input;
  t.shape = {128, 8};
  t.bytes = 4096;
  t.param_index = 0;
  p.hbm_tensors.push_back(t);
  p.locations.push_back(SourceLoc{"k.py", uint32_t(10 + c), 5});
  p.strings.push_back("core " + std::to_string(c));
  Instruction ins;
  ins.op = Opcode::sendrecv;
  ins.engine = Engine::GpSimd;
  for (int s = 0; s < 2; ++s) {
    AccessPattern& ap = ins.operands[size_t(s)];
    ap.mem = Memory::SBUF;
    ap.num_partitions = 128;
    ap.offset = 64 * s + 32 * c;
    ap.dims[ap.num_dims++] = ApDim{1, 8};
  }
  ins.params.pipe_id = uint16_t(3 + c);
  ins.params.sem = 6;
  ins.params.rimm = 1;
  ins.loc = 1;
  p.streams[size_t(Engine::GpSimd)].push_back(ins);
  return p;
}

std::string parse_error(const std::string& text) {
  try {
    parse_asm_cores(text, "l.s");
  } catch (const Error& e) {
    return std::string(e.loc ? std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " : "") + e.what();
  }
  return "no error";
}

std::string decode_error(const std::vector<uint8_t>& b) {
  try {
    decode_programs(b, "l.nkibin");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("LNC=2 programs: exact asm and binary round trips, '.core' text and CORE sections") {
  const std::vector<Program> cores{core_program(0), core_program(1)};
  const std::string text = print_asm_cores(cores);
  CHECK(text.rfind("; nki-sim assembly, LNC=2\n.core 0\n.target trn2\n", 0) == 0);
  const size_t c1 = text.find("\n.core 1\n.target trn2\n.kernel lnc_k\n.semaphores 12\n");
  REQUIRE(c1 != std::string::npos);
  CHECK(text.find(".loc L1 \"k.py\" 10 5") < c1);
  CHECK(text.find(".loc L1 \"k.py\" 11 5") > c1);  // locations are numbered per core
  CHECK(parse_asm_cores(text, "l.s") == cores);
  const std::vector<uint8_t> bin = encode_programs(cores);
  CHECK(decode_programs(bin, "l.nkibin") == cores);
  CHECK(encode_programs(parse_asm_cores(text, "l.s")) == bin);
  CHECK(print_asm_cores(decode_programs(bin, "l.nkibin")) == text);

  // Layout: core 0's sections exactly as a single-core file, then CORE (u32 index 1) and core 1's sections.
  const std::vector<uint8_t> one = encode_program(cores[0]);
  REQUIRE(bin.size() > one.size() + 16);
  CHECK(std::equal(one.begin(), one.end(), bin.begin()));
  CHECK(std::memcmp(bin.data() + one.size(), "CORE\x04\0\0\0\0\0\0\0\x01\0\0\0HEAD", 20) == 0);
  CHECK(bin.size() == one.size() + 16 + (encode_program(cores[1]).size() - 12));

  // A single core prints and encodes as before (no '.core', no CORE section).
  CHECK(print_asm_cores(std::vector<Program>{cores[0]}) == print_asm(cores[0]));
  CHECK(encode_programs(std::vector<Program>{cores[0]}) == one);
  CHECK(decode_programs(one, "l.nkibin") == std::vector<Program>{cores[0]});
  CHECK(parse_asm_cores(print_asm(cores[0]), "l.s") == std::vector<Program>{cores[0]});
}

TEST_CASE("LNC=2 programs: the single-program readers reject them, malformed CORE sections and '.core' lines") {
  const std::vector<Program> cores{core_program(0), core_program(1)};
  const std::vector<uint8_t> bin = encode_programs(cores);
  try {
    decode_program(bin, "l.nkibin");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "the file holds an LNC=2 program (2 cores); run it with nki-sim --program (it needs all cores)");
  }
  try {
    parse_asm(print_asm_cores(cores), "l.s");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "the text holds an LNC=2 program (2 cores, '.core' directives); read it with parse_asm_cores");
  }
  const size_t at = encode_program(cores[0]).size();  // the CORE section
  auto patched = [&](size_t off, std::initializer_list<uint8_t> bytes) {
    std::vector<uint8_t> c = bin;
    std::copy(bytes.begin(), bytes.end(), c.begin() + long(off));
    return c;
  };
  CHECK(decode_error(patched(at + 12, {2})) ==
        "core index 2 where core 1 was expected (at byte " + std::to_string(at + 12) + ")");
  CHECK(decode_error(patched(at + 4, {5})) ==
        "section 'CORE' has 1 unexpected trailing bytes (at byte " + std::to_string(at + 16) + ")");
  CHECK(decode_error(patched(at, {'C', 'O', 'R', 'X'})) ==
        "unexpected " + std::to_string(bin.size() - at) + " trailing bytes after the last section (at byte " +
            std::to_string(at) + ")");
  // A third core: after core 1 another CORE marker with index 2.
  std::vector<uint8_t> three = bin;
  const std::vector<uint8_t> tail(bin.begin() + long(at), bin.end());
  three.insert(three.end(), tail.begin(), tail.end());
  three[bin.size() + 12] = 2;
  CHECK(decode_error(three) == "core index 2 out of range (at most 2 cores) (at byte " +
                                   std::to_string(bin.size() + 12) + ")");
  // Version 3 (before the CORE sections, version 4) is rejected with a hint.
  std::vector<uint8_t> v3 = bin;
  v3[8] = 3;
  CHECK(decode_error(v3) == "unsupported format version 3 (this build reads version " +
                                std::to_string(kBinaryFormatVersion) +
                                "; re-create the file with this build's nki-sim --emit bin or nki-as)");
  // Truncated inside core 1: every cut is a truncation error.
  CHECK(decode_error(std::vector<uint8_t>(bin.begin(), bin.begin() + long(at))) == "no error");  // core 0 alone
  for (size_t n = at + 4; n < bin.size(); n += 7) {
    const std::string msg = decode_error(std::vector<uint8_t>(bin.begin(), bin.begin() + long(n)));
    CHECK_MESSAGE(msg.rfind("truncated file at byte " + std::to_string(n) + ":", 0) == 0, msg);
  }

  const std::string text = print_asm_cores(cores);
  CHECK(parse_error(".target trn2\n.core 0\n") ==
        "2:1: '.core 0' must come before every other directive and instruction");
  CHECK(parse_error(".core 1\n") == "1:7: '.core 1' where '.core 0' was expected");
  CHECK(parse_error(".core 0\n.core 0\n") == "2:7: '.core 0' where '.core 1' was expected");
  CHECK(parse_error(".core 0\n.core 1\n.core 2\n") == "3:7: core 2 out of range (a program has at most 2 cores)");
  CHECK(parse_error(".core\n") == "1:6: expected a core index after '.core'");
  CHECK(parse_error(".core 0 1\n") == "1:9: unexpected '1' after '.core' and its arguments");
  CHECK(parse_error(".core x\n") == "1:7: bad number 'x'");
  // Each core has its own header directives, locations and streams.
  CHECK(parse_error(".core 0\n.target trn2\n.core 1\n.target trn2\n.target trn2\n") ==
        "5:1: duplicate directive '.target'");
  CHECK(parse_error(".core 0\n.loc L1 \"a.py\" 1 1\n.core 1\n.stream gpsimd\n  memset dst=sbuf:float32@p0:1+0x0[[1,1]] @L1\n").find(
            "location L1 is not defined") != std::string::npos);
  CHECK(parse_error(".core 0\n.stream gpsimd\n.core 1\n  memset\n") == "4:3: instruction before any .stream directive");
  CHECK(parse_error(text) == "no error");
}
