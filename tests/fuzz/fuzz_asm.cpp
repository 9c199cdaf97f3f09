// fuzz_asm.cpp - libFuzzer target: parse_asm_cores (the text assembly, docs/asm.md, one or two cores) must
// parse or throw nkisim::Error, never crash; what it parses must print and parse back to the same bytes.
#include <cstdlib>
#include <string_view>

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "isa/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nkisim::isa;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<Program> cores;
  try {
    cores = parse_asm_cores(text, "fuzz.s");
  } catch (const nkisim::Error&) {
    return 0;
  }
  std::vector<uint8_t> bytes;
  try {
    bytes = encode_programs(cores);
  } catch (const nkisim::Error&) {
    return 0;  // parsed but not encodable (e.g. a limit of the binary format): a clean error is fine
  }
  if (encode_programs(parse_asm_cores(print_asm_cores(cores), "fuzz2.s")) != bytes) std::abort();
  return 0;
}
